// The editor features FSAC advertises beyond hover/definition/references: highlights,
// completion, rename, code lenses, call hierarchy, folding and selection ranges, and the
// answers the double gives honestly in FSAC's shape without computing them (semantic
// tokens, inlay hints, inline values, formatting); typeDefinition and signatureHelp have
// modules of their own. Every answer that needs meaning comes from the compiler (resolveAt,
// findReferences, completions, tooltips); the structural ones (folding, selection) from the
// text's layout and the navigation items. README "Known differences" lists what differs.
import { ResponseError } from 'vscode-languageserver/node';
import { compiler } from './compiler.mjs';
import { resolveAt, lineOf, toLspRange } from './resolve.mjs';
import { findReferences } from './references.mjs';
import { identifierAt, codeOnly, scanIdentifiers, lineStarts, offsetToPosition } from './lexer.mjs';
import { navigationItems, SymbolKind } from './navigation.mjs';
import { pathOf } from './workspace.mjs';

const INVALID_PARAMS = -32602;

/** textDocument/documentHighlight: the symbol's uses in this file, without `kind` (§5.5). */
export async function documentHighlight(ws, ctx, position, token) {
  const r = await resolveAt(ws, ctx.project, ctx.file, position);
  if (!r) return [];
  const found = await findReferences(ws, r, token, { onlyFile: ctx.file });
  return found.map((f) => ({ range: f.range }));
}

// FSAC's glyph → CompletionItemKind (LspHelpers.fs glyphToCompletionKind, default value set).
const COMPLETION_KIND = {
  class: 7, constant: 21, delegate: 3, enum: 13, enummember: 20, event: 23, exception: 7, field: 5,
  interface: 8, method: 2, overridenmethod: 2, module: 9, namespace: 9, property: 10, struct: 22,
  typedef: 7, type: 7, union: 7, variable: 6, extensionmethod: 2,
};

/** textDocument/completion: the compiler's completions at the position, as a CompletionList. */
export async function completion(ws, ctx, position) {
  const fcs = await compiler();
  const results = await ws.check(ctx.project, ctx.file);
  const lineText = lineOf(ws.text(ctx.file), position.line);
  const items = fcs.m.GetCompletionsAtLocation(results, position.line + 1, position.character, lineText) ?? [];
  return {
    isIncomplete: false,
    items: items.map((c, i) => {
      const kind = COMPLETION_KIND[String(c.Glyph).toLowerCase()];
      return {
        label: c.Name, ...(kind ? { kind } : {}), insertText: c.Name, filterText: c.Name,
        sortText: String(i).padStart(6, '0'), data: [ws.uriFor(ctx.file), String(position.line), String(position.character)],
      };
    }),
  };
}

/** FCS's rule for a name that needs backticks (PrettyNaming), for rename's new name. */
const KEYWORDS = new Set(('abstract and as assert base begin class default delegate do done downcast downto elif else end '
  + 'exception extern false finally fixed for fun function global if in inherit inline interface internal lazy let match '
  + 'member module mutable namespace new not null of open or override private public rec return select sig static struct '
  + 'then to true try type upcast use val void when while with yield const').split(' '));
function renameTarget(newName) {
  const bare = newName.startsWith('``') && newName.endsWith('``') && newName.length > 4 ? newName.slice(2, -2) : newName;
  if (!bare || /[\n`]/.test(bare)) throw new ResponseError(INVALID_PARAMS, `'${newName}' is not a valid identifier`);
  return /^[A-Za-z_\u00C0-\uFFFF][A-Za-z0-9_'\u00C0-\uFFFF]*$/.test(bare) && !KEYWORDS.has(bare) ? bare : `\`\`${bare}\`\``;
}

/** The symbol to rename, or FSAC's -32602 errors (§5.6). */
async function renameable(ws, ctx, position) {
  const r = await resolveAt(ws, ctx.project, ctx.file, position);
  if (!r) throw new ResponseError(INVALID_PARAMS, 'Nothing to rename');
  if (!r.decl) throw new ResponseError(INVALID_PARAMS, 'Must be declared inside current workspace, but is external.');
  return r;
}

/** textDocument/prepareRename: the identifier's range (a plain Range). */
export async function prepareRename(ws, ctx, position) {
  const r = await renameable(ws, ctx, position);
  return { start: { line: position.line, character: r.ident.start }, end: { line: position.line, character: r.ident.end } };
}

/** A text edit per site of `sites`, grouped per file, in FSAC's WorkspaceEdit shape (§5.6). */
function workspaceEdit(ws, sites, text, clientCaps) {
  const perFile = new Map();
  for (const s of sites) {
    if (!perFile.has(s.file)) perFile.set(s.file, []);
    perFile.get(s.file).push({ range: s.range, newText: text });
  }
  if (clientCaps?.workspace?.workspaceEdit?.documentChanges === true) {
    return {
      documentChanges: [...perFile].map(([file, edits]) => ({
        textDocument: { uri: ws.uriFor(file), version: ws.documents.get(file)?.version ?? 0 }, edits,
      })),
    };
  }
  return { changes: Object.fromEntries([...perFile].map(([file, edits]) => [ws.uriFor(file), edits])) };
}

/** textDocument/rename: every site of the symbol (the references sweep) gets the new name. */
export async function rename(ws, ctx, position, newName, clientCaps, token) {
  const text = renameTarget(String(newName ?? ''));
  const r = await renameable(ws, ctx, position);
  return workspaceEdit(ws, await findReferences(ws, r, token), text, clientCaps);
}

// ---- code lenses (§5.11) --------------------------------------------------------------------

// FSAC's getCodeLensInformation keeps functions, values and members, but not union cases,
// record fields, or the members of records, unions and interfaces.
const LENS_KINDS = new Set([SymbolKind.Function, SymbolKind.Variable, SymbolKind.Method, SymbolKind.Property]);

/** textDocument/codeLens: unresolved signature lenses, `data = [uri, "signature"]`. */
export function codeLenses(ws, file) {
  const uri = ws.uriFor(file);
  return navigationItems(ws.text(file)).filter((i) => LENS_KINDS.has(i.kind)).map((i) => ({ range: i.range, data: [uri, 'signature'] }));
}

/** `val f: x: int -> string` → `int -> string`: the type signature of a tooltip's first line. */
function typeSignatureOf(signature) {
  const head = /^(?:val|member|property|static member|abstract member|override)\s+(?:(?:inline|mutable|private|internal)\s+)*[^:]*?:\s*/.exec(signature);
  const type = head ? signature.slice(head[0].length) : signature;
  return type.replace(/\b[a-z_][\w']*\s*:\s*/g, '').replace(/\s+/g, ' ').trim();
}

/** codeLens/resolve: signature → the type as title; reference → "N References" (§5.11). */
export async function resolveCodeLens(ws, lens, token) {
  const [uri, kind] = Array.isArray(lens?.data) ? lens.data : [];
  const file = typeof uri === 'string' ? pathOf(uri) : null;
  const project = file ? ws.projectFor(file) : undefined;
  if (!project) return { ...lens, command: { title: kind === 'reference' ? '0 References' : '', command: '' } };
  const r = await resolveAt(ws, project, file, lens.range.start);
  if (kind === 'reference') {
    const sites = r ? await findReferences(ws, r, token) : [];
    const others = sites.filter((s) => !(s.file === file && s.range.start.line === lens.range.start.line && s.range.start.character === lens.range.start.character));
    if (others.length === 0) return { ...lens, command: { title: '0 References', command: '' } };
    const locations = others.map((s) => ({ uri: ws.uriFor(s.file), range: s.range }));
    return { ...lens, command: { title: `${others.length} References`, command: 'fsharp.showReferences', arguments: [uri, lens.range.start, locations] } };
  }
  return { ...lens, command: { title: r?.tip.signature ? typeSignatureOf(r.tip.signature) : '', command: '' } };
}

// ---- call hierarchy (§5.12) -----------------------------------------------------------------

const CALLABLE = new Set([SymbolKind.Function, SymbolKind.Method, SymbolKind.Property, SymbolKind.Variable]);

/** textDocument/prepareCallHierarchy: one item at the symbol's declaration, or null. */
export async function prepareCallHierarchy(ws, ctx, position) {
  const r = await resolveAt(ws, ctx.project, ctx.file, position);
  if (!r?.decl) return null;
  const range = toLspRange(r.decl.range);
  return [{ name: r.name, kind: SymbolKind.Function, uri: ws.uriFor(r.decl.file), range, selectionRange: range, detail: `From ${r.decl.file.split('/').at(-1)}` }];
}

/** The navigation item (function, member, value) whose body holds `line` of `file`. */
function enclosingCallable(ws, file, line) {
  const items = navigationItems(ws.text(file)).filter((i) => CALLABLE.has(i.kind) && i.range.start.line <= line);
  return items.at(-1);
}

/** callHierarchy/incomingCalls: the references of the item, grouped by the declaration they sit in. */
export async function incomingCalls(ws, item, token) {
  const file = pathOf(item.uri);
  const project = ws.projectFor(file);
  if (!project) return [];
  const r = await resolveAt(ws, project, file, item.selectionRange.start);
  if (!r) return [];
  const calls = new Map();
  for (const site of await findReferences(ws, r, token)) {
    if (r.decl && site.file === r.decl.file && site.range.start.line === r.decl.range.StartLine - 1) continue; // the declaration
    const caller = enclosingCallable(ws, site.file, site.range.start.line);
    if (!caller) continue;
    const key = `${site.file}|${caller.range.start.line}|${caller.range.start.character}`;
    if (!calls.has(key)) {
      calls.set(key, {
        from: { name: caller.name, kind: SymbolKind.Function, uri: ws.uriFor(site.file), range: caller.range, selectionRange: caller.range, detail: `From ${site.file.split('/').at(-1)}` },
        fromRanges: [],
      });
    }
    calls.get(key).fromRanges.push(site.range);
  }
  return [...calls.values()];
}

/**
 * callHierarchy/outgoingCalls: the identifiers in the item's body (its line up to the next
 * declaration that starts a callable), each resolved by the compiler; those declared in the
 * workspace as functions, members or values are callees, grouped by their declaration.
 */
export async function outgoingCalls(ws, item, token) {
  const file = pathOf(item.uri);
  const project = ws.projectFor(file);
  if (!project) return [];
  const text = ws.text(file);
  const items = navigationItems(text);
  const own = items.find((i) => i.range.start.line === item.selectionRange.start.line) ?? { range: item.range };
  const first = own.range.start.line;
  const next = items.find((i) => CALLABLE.has(i.kind) && i.range.start.line > first && (i.range.start.character <= own.range.start.character));
  const last = next ? next.range.start.line - 1 : Number.MAX_SAFE_INTEGER;
  const starts = lineStarts(text);
  const calls = new Map();
  for (const ident of scanIdentifiers(text)) {
    if (token?.isCancellationRequested) break;
    const at = offsetToPosition(starts, ident.start);
    if (at.line < first || at.line > last) continue;
    if (at.line === own.range.start.line && at.character === own.range.start.character) continue; // the item's own name
    const r = await resolveAt(ws, project, file, at);
    if (!r?.decl) continue;
    const declFile = r.decl.file;
    const declLine = r.decl.range.StartLine - 1;
    const onLine = navigationItems(ws.text(declFile)).find((i) => i.range.start.line === declLine);
    // A signature file's `val` (where the compiler declares a value that has one) is callable too.
    const isVal = declFile.endsWith('.fsi') && /^\s*val\b/.test(lineOf(ws.text(declFile), declLine));
    if (onLine ? !CALLABLE.has(onLine.kind) : !isVal) continue;
    const declItem = onLine ?? { name: r.name, range: toLspRange(r.decl.range) };
    if (declFile === file && declItem.range.start.line === first) continue; // recursion into itself is still the item
    const key = `${declFile}|${declItem.range.start.line}|${declItem.range.start.character}`;
    if (!calls.has(key)) {
      calls.set(key, {
        to: { name: declItem.name, kind: SymbolKind.Function, uri: ws.uriFor(declFile), range: declItem.range, selectionRange: declItem.range, detail: `From ${declFile.split('/').at(-1)}` },
        fromRanges: [],
      });
    }
    const end = offsetToPosition(starts, ident.end);
    calls.get(key).fromRanges.push({ start: at, end });
  }
  return [...calls.values()];
}

// ---- implementation (§5.12) -------------------------------------------------------------------

const indentOf = (line) => line.length - line.trimStart().length;

/** The `type NAME` line above `line` in `text` at a lower indentation: the member's type. */
function enclosingTypeLine(text, line) {
  const lines = text.split('\n');
  const own = indentOf(lines[line] ?? '');
  for (let i = line - 1; i >= 0; i--) {
    const m = /^(\s*)(?:type|and)\s+(?:\[<[^>]*>\]\s*)?(?:private\s+|internal\s+)?([A-Za-z_][\w']*)/.exec(lines[i]);
    if (m && m[1].length < own) return { line: i, character: m[1].length + m[0].slice(m[1].length).lastIndexOf(m[2]), name: m[2] };
  }
  return null;
}

const sameDecl = (a, b) => a && b && a.file === b.file && a.range.StartLine === b.range.StartLine && a.range.StartColumn === b.range.StartColumn;

/**
 * textDocument/implementation at an abstract member (of an interface or an abstract class):
 * the members that implement it, in every project that sees the declaring file: inside an
 * `interface T with` block of a type, an object expression `{ new T with …` or a type that
 * `inherit`s T, each `T` confirmed by the compiler to be the declaring type. At the type's
 * own name: where it is implemented or inherited (the `T` of each such block).
 */
export async function implementation(ws, ctx, position) {
  const r = await resolveAt(ws, ctx.project, ctx.file, position);
  if (!r?.decl) return null;
  const declText = ws.text(r.decl.file);
  const declLine = r.decl.range.StartLine - 1;
  const asType = /^\s*(?:type|and)\b/.test(lineOf(declText, declLine));
  let typeDecl = r.decl;
  let member = null;
  if (!asType) {
    const typeLine = enclosingTypeLine(declText, declLine);
    if (!typeLine) return null;
    const project = ws.projectFor(r.decl.file);
    const t = project && await resolveAt(ws, project, r.decl.file, { line: typeLine.line, character: typeLine.character });
    if (!t?.decl) return null;
    typeDecl = t.decl;
    member = r.name;
  }
  const typeName = asType ? r.name : lineOf(declText, typeDecl.range.StartLine - 1).slice(typeDecl.range.StartColumn, typeDecl.range.EndColumn);
  const found = [];
  const seen = new Set();
  for (const project of ws.projectsSeeing(typeDecl.file)) {
    for (const { path: file } of project.compile) {
      const text = ws.text(file);
      if (!text.includes(typeName)) continue;
      const lines = text.split('\n');
      for (let i = 0; i < lines.length; i++) {
        const m = new RegExp(`(\\binterface|\\bnew|\\binherit)\\s+(${typeName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})\\b`).exec(lines[i]);
        if (!m) continue;
        const character = m.index + m[0].length - m[2].length;
        const t = await resolveAt(ws, project, file, { line: i, character });
        if (!sameDecl(t?.decl, typeDecl)) continue;
        if (!member) {
          const key = `${file}|${i}|${character}`;
          if (!seen.has(key)) { seen.add(key); found.push({ uri: ws.uriFor(file), range: { start: { line: i, character }, end: { line: i, character: character + m[2].length } } }); }
          continue;
        }
        // The block's members: this line's rest, then the lines indented deeper than it.
        const blockIndent = indentOf(lines[i]);
        for (let j = i; j < lines.length; j++) {
          if (j > i && lines[j].trim() && indentOf(lines[j]) <= blockIndent && !/^\s*(member|override|default)\b/.test(lines[j])) break;
          const segment = j === i ? lines[j].slice(m.index) : lines[j];
          const offset = j === i ? m.index : 0;
          const mm = new RegExp(`\\b(?:member|override|default)\\s+(?:[A-Za-z_][\\w']*\\.)?(${member})\\b`).exec(segment);
          if (!mm) continue;
          const at = offset + mm.index + mm[0].length - mm[1].length;
          const key = `${file}|${j}|${at}`;
          if (seen.has(key)) continue;
          seen.add(key);
          found.push({ uri: ws.uriFor(file), range: { start: { line: j, character: at }, end: { line: j, character: at + member.length } } });
        }
      }
    }
  }
  return found;
}

// ---- layout: folding and selection ranges (§5.12, parse-based in FSAC) ------------------------

/** Blocks of the text: each code line with the lines indented deeper below it. */
function indentationBlocks(text) {
  const lines = codeOnly(text).split('\n');
  const indentOf = (l) => (l.trim() ? l.length - l.trimStart().length : null);
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const own = indentOf(lines[i]);
    if (own === null) continue;
    let end = i;
    for (let j = i + 1; j < lines.length; j++) {
      const ind = indentOf(lines[j]);
      if (ind === null) continue;
      if (ind <= own) break;
      end = j;
    }
    if (end > i) blocks.push({ startLine: i, startCharacter: lines[i].trimEnd().length, endLine: end, endCharacter: lines[end].trimEnd().length });
  }
  return blocks;
}

/** textDocument/foldingRange: indentation blocks, plus runs of `open` lines as imports. */
export function foldingRanges(ws, file) {
  const text = ws.text(file);
  const ranges = indentationBlocks(text).map((b) => ({ ...b }));
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*open\s/.test(lines[i])) continue;
    let end = i;
    while (end + 1 < lines.length && /^\s*open\s/.test(lines[end + 1])) end++;
    if (end > i) ranges.push({ startLine: i, startCharacter: lines[i].indexOf('open') + 4, endLine: end, endCharacter: lines[end].trimEnd().length, kind: 'imports' });
    i = end;
  }
  return ranges.sort((a, b) => a.startLine - b.startLine || a.endLine - b.endLine);
}

/** textDocument/selectionRange: identifier → line → enclosing blocks → whole file, per position. */
export function selectionRanges(ws, file, positions) {
  const text = ws.text(file);
  const lines = text.split('\n');
  const blocks = indentationBlocks(text);
  const whole = { start: { line: 0, character: 0 }, end: { line: lines.length - 1, character: lines.at(-1).length } };
  return (positions ?? []).map((p) => {
    const line = lineOf(text, p.line);
    const chain = [whole];
    for (const b of blocks.filter((b) => b.startLine <= p.line && p.line <= b.endLine).sort((a, b) => (b.endLine - b.startLine) - (a.endLine - a.startLine))) {
      const indent = lines[b.startLine].length - lines[b.startLine].trimStart().length;
      chain.push({ start: { line: b.startLine, character: indent }, end: { line: b.endLine, character: b.endCharacter } });
    }
    const indent = line.length - line.trimStart().length;
    chain.push({ start: { line: p.line, character: indent }, end: { line: p.line, character: line.trimEnd().length } });
    const ident = identifierAt(line, p.character);
    if (ident) chain.push({ start: { line: p.line, character: ident.start }, end: { line: p.line, character: ident.end } });
    let parent;
    for (const range of chain) parent = parent ? { range, parent } : { range };
    return parent;
  });
}

// ---- answered in FSAC's shape, not computed (README "Known differences") -----------------------

/** semanticTokens/full and /range: no classification from this compiler build; no tokens. */
export const noSemanticTokens = () => ({ data: [] });
