// Find references: every identifier occurrence, in every project that can see
// the symbol, whose compiler-resolved declaration is the target's declaration.
// A signature (`X.fsi`) and its implementation (`X.fs`) declare one symbol, as
// FCS's GetUsesOfSymbolInFile treats them (uses elsewhere resolve to the `val`,
// uses inside the implementation to the `let`): both declarations count.
// Closed files are read from disk, open files from their buffers. The
// declaration itself is always included (FSAC ignores includeDeclaration).
// Cancellable: the token is checked between files.
import { compiler } from './compiler.mjs';
import { scanIdentifiers, lineStarts, offsetToPosition } from './lexer.mjs';
import { lineOf, sameRange, declaringFile, toLspRange } from './resolve.mjs';
import { parseTooltip } from './tooltip.mjs';
import { log } from './log.mjs';
import { faults } from './faults.mjs';

export class Cancelled extends Error {}
const yieldNow = () => new Promise((resolve) => (faults.sweepDelayMs ? setTimeout(resolve, faults.sweepDelayMs) : setImmediate(resolve)));

/** The `.fs` of a `.fsi` and the `.fsi` of a `.fs`, when `project` compiles it. */
function partnerFile(ws, project, file) {
  const partner = file.endsWith('.fsi') ? file.slice(0, -1) : `${file}i`;
  return ws.compileFiles(project).includes(partner) ? partner : null;
}

/**
 * The declaration paired with `target.decl` in its signature or implementation file:
 * an occurrence of the name there that the compiler resolves to itself (a definition),
 * whose tooltip names the same symbol. Null when the file has no partner or none fits.
 */
async function partnerDeclaration(ws, target) {
  const fcs = await compiler();
  const project = ws.projectFor(target.decl.file);
  const file = project && partnerFile(ws, project, target.decl.file);
  if (!file) return null;
  const text = ws.text(file);
  const starts = lineStarts(text);
  const results = await ws.check(project, file);
  const wanted = target.tip?.fullName;
  let first = null;
  for (const t of scanIdentifiers(text).filter((token) => token.name === target.name)) {
    const pos = offsetToPosition(starts, t.start);
    const lineText = lineOf(text, pos.line);
    const col = pos.character + (t.end - t.start);
    const decl = fcs.declarationAt(results, pos.line + 1, col, lineText);
    const written = t.quoted ? pos.character - 2 : pos.character;
    if (!decl || decl.StartLine !== pos.line + 1 || decl.StartColumn !== written) continue;
    const here = { file, range: decl };
    if (!wanted) return here;
    const tip = parseTooltip(fcs.tooltipAt(results, pos.line + 1, col, lineText));
    if (tip.fullName === wanted) return here;
    first ??= here;
  }
  return wanted ? null : first;
}

/**
 * target: result of resolveAt. Returns [{file, range (LSP)}], sorted, de-duplicated; with
 * `onlyFile`, only the sites in that file (each project seeing it searches it once).
 */
export async function findReferences(ws, target, token, { onlyFile } = {}) {
  const fcs = await compiler();
  const declarations = target.decl ? [target.decl] : [];
  if (target.decl) {
    const partner = await partnerDeclaration(ws, target);
    if (partner) declarations.push(partner);
  }
  const found = new Map();
  const add = (file, range) => found.set(`${file}|${range.start.line}|${range.start.character}`, { file, range });
  const projects = target.decl ? ws.projectsSeeing(target.decl.file, { scripts: true }) : [...ws.projects.values(), ...ws.openScriptProjects()];
  const externalKey = (tip) => tip.fullName ?? tip.signature;
  const wantedKey = target.decl ? null : externalKey(target.tip);
  if (!target.decl && !wantedKey) return [];

  let searched = 0;
  const started = Date.now();
  log(`references: sweep of ${projects.reduce((n, p) => n + p.compile.length, 0)} files for ${target.name}`);
  for (const project of projects) {
    for (const { path: file } of project.compile) {
      if (onlyFile && file !== onlyFile) continue; // documentHighlight: the uses in one file
      await yieldNow();
      if (token?.isCancellationRequested) {
        log(`references: cancelled after searching ${searched} files`);
        throw new Cancelled();
      }
      searched++;
      const text = ws.text(file);
      const tokens = scanIdentifiers(text).filter((t) => t.name === target.name);
      if (tokens.length === 0) continue;
      const results = await ws.check(project, file);
      const starts = lineStarts(text);
      for (const t of tokens) {
        const pos = offsetToPosition(starts, t.start);
        const lineText = lineOf(text, pos.line);
        const col = pos.character + (t.end - t.start);
        const decl = fcs.declarationAt(results, pos.line + 1, col, lineText);
        // The compiler's range of a backticked use covers the backticks (FSAC's own
        // FindReferences test solution expects ``value`` as a whole).
        const range = t.quoted
          ? { start: { line: pos.line, character: pos.character - 2 }, end: { line: pos.line, character: col + 2 } }
          : { start: pos, end: { line: pos.line, character: col } };
        if (target.decl) {
          const matching = declarations.filter((d) => sameRange(decl, d.range));
          if (matching.length === 0) continue;
          const tipLines = () => fcs.tooltipAt(results, pos.line + 1, col, lineText);
          for (const d of matching) {
            const declFile = await declaringFile(ws, project, decl, target.name, tipLines, d.file);
            if (declFile === d.file) { add(file, range); break; }
          }
        } else if (!decl) {
          const tip = parseTooltip(fcs.tooltipAt(results, pos.line + 1, col, lineText));
          if (externalKey(tip) === wantedKey) add(file, range);
        }
      }
    }
  }
  for (const d of declarations) if (!onlyFile || d.file === onlyFile) add(d.file, toLspRange(d.range));
  if (faults.referencesSkipSignatures) {
    for (const [key, location] of found) if (location.file.endsWith('.fsi')) found.delete(key);
  }
  log(`references: ${found.size} found in ${searched} files, ${Date.now() - started} ms`);
  const sorted = [...found.values()].sort((a, b) => a.file.localeCompare(b.file)
    || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  if (faults.referencesDropLastUse) {
    const sameLspRange = (a, b) => a.start.line === b.start.line && a.start.character === b.start.character
      && a.end.line === b.end.line && a.end.character === b.end.character;
    const isDeclaration = (location) =>
      declarations.some((d) => d.file === location.file && sameLspRange(location.range, toLspRange(d.range)));
    const last = sorted.findLastIndex((location) => !isDeclaration(location));
    if (last >= 0) sorted.splice(last, 1);
  }
  return sorted;
}
