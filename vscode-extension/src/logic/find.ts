// fslens.find and fslens.fieldImpact (issues 5 and 7): arguments, pages and sites. Fields a
// given fslens does not send are optional here.

import { Range, absolutePath, rangeOf } from "./common";

export interface FindRequest {
  /** A symbol name (`Shipment.Weight`, `Ledger.Core.Accounts.deposit`); else the position. */
  query?: string;
  position?: { path: string; line: number; character: number };
  maxResults?: number;
  timeoutMs?: number;
}

/** Arguments for `fslens.find`: a query, or `kind: "position"` at the cursor. */
export function findArguments(request: FindRequest, cursor?: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const query = request.query?.trim();
  if (query) {
    args.query = query;
  } else if (request.position) {
    args.kind = "position";
    args.path = request.position.path;
    args.line = request.position.line;
    args.character = request.position.character;
  } else {
    throw new Error("Find: give a symbol name or put the cursor on one");
  }
  if (request.maxResults !== undefined) {
    args.maxResults = Math.max(1, Math.min(1000, Math.floor(request.maxResults)));
  }
  if (request.timeoutMs !== undefined) {
    args.timeoutMs = request.timeoutMs;
  }
  if (cursor) {
    args.cursor = cursor;
  }
  return args;
}

/** Arguments for `fslens.fieldImpact`: a field name (`kind: "field"`) or the cursor. */
export function fieldImpactArguments(request: FindRequest, cursor?: string): Record<string, unknown> {
  const args = findArguments(request, cursor);
  if (args.query !== undefined) {
    args.kind = "field";
  }
  return args;
}

export interface Site {
  file?: string;
  range?: unknown;
  kind?: string;
  symbolFullName?: string;
  project?: string;
  lineText?: string;
  via?: string;
  siteType?: string | null;
}

export interface FindResult {
  sites?: Site[];
  outcome?: "found" | "not_found" | "indeterminate" | string;
  status?: string;
  nextCursor?: string | null;
  totalSites?: number;
  scopeNote?: string;
  via?: string;
  note?: string;
  siteTypesNote?: string;
  [key: string]: unknown;
}

export interface SiteLocation {
  path: string;
  range: Range;
  /** Quick pick label: the trimmed source line (or the symbol when there is none). */
  label: string;
  /** Quick pick description: file:line. */
  description: string;
  /** Quick pick detail: kind, symbol, type, project. */
  detail: string;
  siteKind: string;
}

/** Human words for the site kinds. */
export function kindLabel(kind: string | undefined): string {
  switch (kind) {
    case "field-construction":
    case "construction":
      return "construction";
    case "field-copy-update":
    case "copy-update":
      return "copy-and-update";
    case "field-set-mutation":
    case "mutation":
      return "mutation";
    case "field-pattern":
    case "pattern":
      return "pattern";
    case "field-read":
    case "read":
      return "read";
    case "decl":
    case "definition":
    case "declaration":
      return "declaration";
    default:
      return kind ?? "site";
  }
}

/** `src/App/Shipping.App.fsproj` → `Shipping.App`; a bare name stays. */
export function projectName(project: string): string {
  return (project.split(/[\\/]/).pop() ?? project).replace(/\.fsproj$/i, "");
}

/** Sites as locations with quick pick texts, in the answer's order. */
export function siteLocations(sites: Site[] | undefined, root: string): SiteLocation[] {
  const locations: SiteLocation[] = [];
  for (const site of sites ?? []) {
    if (!site.file) {
      continue;
    }
    const path = absolutePath(root, site.file);
    const range = rangeOf(site.range);
    const kind = kindLabel(site.kind);
    const details = [kind];
    if (site.symbolFullName) {
      details.push(site.symbolFullName);
    }
    if (site.siteType) {
      details.push(`: ${site.siteType}`);
    }
    if (site.project) {
      details.push(`[${projectName(site.project)}]`);
    }
    locations.push({
      path,
      range,
      label: (site.lineText ?? site.symbolFullName ?? site.file).trim(),
      description: `${site.file}:${range.start.line + 1}`,
      detail: details.join(" "),
      siteKind: kind,
    });
  }
  return locations;
}

/** Collects pages: `fetch(cursor)` until there is no `nextCursor` or `maxPages` were read. */
export async function collectPages(
  fetch: (cursor: string | undefined) => Promise<FindResult>,
  maxPages: number,
  onPage?: (pages: number, sites: number) => void,
): Promise<{ result: FindResult; pages: number; morePages: boolean }> {
  let cursor: string | undefined;
  let pages = 0;
  const sites: Site[] = [];
  let last: FindResult = {};
  do {
    last = (await fetch(cursor)) ?? {};
    pages += 1;
    sites.push(...(last.sites ?? []));
    onPage?.(pages, sites.length);
    cursor = typeof last.nextCursor === "string" && last.nextCursor !== "" ? last.nextCursor : undefined;
  } while (cursor && pages < maxPages);
  return { result: { ...last, sites, nextCursor: cursor ?? null }, pages, morePages: cursor !== undefined };
}

/** One line on the outcome for a notification. */
export function findSummary(what: string, result: FindResult, morePages = false): string {
  const count = result.sites?.length ?? 0;
  const outcome = result.outcome ?? (count > 0 ? "found" : "not_found");
  let text: string;
  switch (outcome) {
    case "found":
      text = `${what}: ${count} site${count === 1 ? "" : "s"}`;
      break;
    case "not_found":
      text = `${what}: no sites (every project was searched)`;
      break;
    case "indeterminate":
      text = `${what}: ${count} site${count === 1 ? "" : "s"} so far, not certain to be all`;
      break;
    default:
      text = `${what}: ${outcome}, ${count} site${count === 1 ? "" : "s"}`;
  }
  if (result.via === "syntax") {
    text += " (syntax only: FsAutoComplete is not ready)";
  }
  if (morePages) {
    text += "; more pages not fetched (raise fslens.find.maxPages)";
  }
  const note = result.scopeNote ?? result.note;
  if (typeof note === "string" && note !== "") {
    text += `. ${note}`;
  }
  return text;
}

export interface SiteTreeSite {
  path: string;
  range: Range;
  /** `mutation: float`: the site's kind and, for field impact, the field's type there. */
  label: string;
  /** `24 · Shipping.App · bumped.Weight <- …`: the 1-based line, the project, the source line. */
  description: string;
  tooltip: string;
  siteKind: string;
}

export interface SiteTreeFile {
  /** The file as the answer names it (relative to the workspace root). */
  label: string;
  path: string;
  /** `3 sites`. */
  description: string;
  sites: SiteTreeSite[];
}

/**
 * Sites grouped by file for the fslens Sites view, files and sites in the answer's order.
 * Every row shows what the References peek cannot: the site's kind and, for field impact,
 * the field's type there.
 */
export function siteTree(sites: Site[] | undefined, root: string): SiteTreeFile[] {
  const files = new Map<string, SiteTreeFile>();
  for (const site of sites ?? []) {
    if (!site.file) {
      continue;
    }
    const path = absolutePath(root, site.file);
    let file = files.get(path);
    if (!file) {
      file = { label: site.file, path, description: "", sites: [] };
      files.set(path, file);
    }
    const range = rangeOf(site.range);
    const kind = kindLabel(site.kind);
    const text = (site.lineText ?? site.symbolFullName ?? "").trim();
    const description = [String(range.start.line + 1), ...(site.project ? [projectName(site.project)] : []), text];
    file.sites.push({
      path,
      range,
      label: site.siteType ? `${kind}: ${site.siteType}` : kind,
      description: description.join(" · "),
      tooltip: [
        `${site.file}:${range.start.line + 1}:${range.start.character + 1}`,
        `${kind}${site.symbolFullName ? ` of ${site.symbolFullName}` : ""}`,
        ...(site.siteType ? [`type: ${site.siteType}`] : []),
        ...(site.project ? [`project: ${projectName(site.project)}`] : []),
      ].join("\n"),
      siteKind: kind,
    });
  }
  for (const file of files.values()) {
    file.description = `${file.sites.length} site${file.sites.length === 1 ? "" : "s"}`;
  }
  return [...files.values()];
}
