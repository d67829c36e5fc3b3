// Find references: every identifier occurrence, in every project that can see
// the symbol, whose compiler-resolved declaration is the target's declaration.
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

/** target: result of resolveAt. Returns [{file, range (LSP)}], sorted, de-duplicated. */
export async function findReferences(ws, target, token) {
  const fcs = await compiler();
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
          if (!sameRange(decl, target.decl.range)) continue;
          const tipLines = () => fcs.tooltipAt(results, pos.line + 1, col, lineText);
          const declFile = await declaringFile(ws, project, decl, target.name, tipLines, target.decl.file);
          if (declFile === target.decl.file) add(file, range);
        } else if (!decl) {
          const tip = parseTooltip(fcs.tooltipAt(results, pos.line + 1, col, lineText));
          if (externalKey(tip) === wantedKey) add(file, range);
        }
      }
    }
  }
  if (target.decl) add(target.decl.file, toLspRange(target.decl.range));
  log(`references: ${found.size} found in ${searched} files, ${Date.now() - started} ms`);
  return [...found.values()].sort((a, b) => a.file.localeCompare(b.file)
    || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
}
