// Position features answered by the compiler at request time: hover,
// definition, references, fsharp/signature; plus the parse-level document and
// workspace symbols, and the diagnostics of a check.
import { compiler } from './compiler.mjs';
import { resolveAt, toLspRange } from './resolve.mjs';
import { findReferences } from './references.mjs';
import { hoverContents } from './tooltip.mjs';
import { navigationItems, matchesQuery } from './navigation.mjs';
import { envelope } from './loader.mjs';
import { fcsNameOf, scriptDiagnostics } from './scripts.mjs';

export async function hover(ws, ctx, position) {
  const r = await resolveAt(ws, ctx.project, ctx.file, position);
  if (!r || !r.tip.signature) return null;
  const assembly = r.decl ? ws.projectFor(r.decl.file)?.assemblyName : undefined;
  return { contents: hoverContents(r.tip, assembly) };
}

export async function definition(ws, ctx, position) {
  const r = await resolveAt(ws, ctx.project, ctx.file, position);
  if (!r?.decl) return null;
  return { uri: ws.uriFor(r.decl.file), range: toLspRange(r.decl.range) };
}

export async function references(ws, ctx, position, token) {
  const r = await resolveAt(ws, ctx.project, ctx.file, position);
  if (!r) return [];
  const found = await findReferences(ws, r, token);
  return found.map((f) => ({ uri: ws.uriFor(f.file), range: f.range }));
}

export async function signature(ws, ctx, position) {
  const r = await resolveAt(ws, ctx.project, ctx.file, position);
  if (!r?.tip.signature) return null;
  return envelope('typesig', r.tip.signature);
}

export function documentSymbols(ws, file) {
  return navigationItems(ws.text(file)).map((i) => ({ name: i.name, kind: i.kind, range: i.range, selectionRange: i.range }));
}

export function workspaceSymbols(ws, query) {
  if (!query) return [];
  const files = new Set([...ws.projects.values()].flatMap((p) => p.compile.map((c) => c.path)));
  for (const f of ws.documents.keys()) files.add(f);
  const out = [];
  for (const file of files) {
    for (const i of navigationItems(ws.text(file))) {
      if (matchesQuery(i, query)) out.push({ name: i.name, kind: i.kind, location: { uri: ws.uriFor(file), range: i.range }, containerName: i.containerName });
    }
  }
  return out;
}

const SEVERITY = { error: 1, warning: 2, info: 3 };

/**
 * LSP diagnostics of `file` from a check result of `project`, as FSAC publishes
 * them (§5.1); for scripts, with FS0079/FS0085 for their #load directives.
 */
export async function diagnosticsOf(results, file, project) {
  const fcs = await compiler();
  const seen = new Set();
  const out = [];
  const all = fcs.diagnostics(results);
  const mine = project?.isScript ? scriptDiagnostics(project, file, all) : all.filter((d) => d.fileName === fcsNameOf(file));
  for (const d of mine) {
    const diag = {
      range: { start: { line: d.startLine - 1, character: d.startColumn }, end: { line: d.endLine - 1, character: d.endColumn } },
      ...(SEVERITY[d.severity] ? { severity: SEVERITY[d.severity] } : {}),
      ...(d.number !== null ? {
        code: d.number,
        codeDescription: { href: `https://docs.microsoft.com/en-us/dotnet/fsharp/language-reference/compiler-messages/fs${String(d.number).padStart(4, '0')}` },
      } : {}),
      source: 'F# Compiler',
      message: d.message.replace(/\u001d/g, '\n'),
      relatedInformation: [],
    };
    const key = JSON.stringify(diag);
    if (!seen.has(key)) { seen.add(key); out.push(diag); }
  }
  return out;
}
