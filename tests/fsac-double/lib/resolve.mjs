// Symbol resolution at a position, entirely by the compiler: the identifier
// under the cursor is found lexically, then FCS's GetDeclarationLocation and
// GetToolTip answer what it is. FCS's declaration range comes without a file
// name (fable-standalone drops it); the declaring file is the compile-list file
// whose text at that range is the identifier, disambiguated, if several match,
// by comparing the compiler's tooltip at each candidate with the one at the use.
import { compiler } from './compiler.mjs';
import { identifierAt } from './lexer.mjs';
import { parseTooltip } from './tooltip.mjs';

export const sameRange = (a, b) => a && b && a.StartLine === b.StartLine && a.StartColumn === b.StartColumn
  && a.EndLine === b.EndLine && a.EndColumn === b.EndColumn;

export const toLspRange = (r) => ({
  start: { line: r.StartLine - 1, character: r.StartColumn },
  end: { line: r.EndLine - 1, character: r.EndColumn },
});

export function lineOf(text, line0) {
  return text.split('\n')[line0]?.replace(/\r$/, '') ?? '';
}

/** The text of a one-line FCS range in `text`, backticks removed (null for multi-line ranges). */
export function textAtRange(text, r) {
  if (r.StartLine !== r.EndLine) return null;
  const line = lineOf(text, r.StartLine - 1);
  const t = line.slice(r.StartColumn, r.EndColumn);
  return t.startsWith('``') && t.endsWith('``') ? t.slice(2, -2) : t;
}

/** Ask the compiler about one identifier token: {decl, tip} (decl = FCS range or undefined). */
export async function askAt(ws, project, file, line0, ident, lineText) {
  const fcs = await compiler();
  const results = await ws.check(project, file);
  const col = ident.end; // fable's col is "just after the character meant"
  return {
    decl: fcs.declarationAt(results, line0 + 1, col, lineText),
    tipLines: () => fcs.tooltipAt(results, line0 + 1, col, lineText),
  };
}

/** Which file of `project`'s compilation declares `name` at range `decl`. */
export async function declaringFile(ws, project, decl, name, useTip, preferFile) {
  const files = ws.compileFiles(project);
  let candidates = files.filter((f) => textAtRange(ws.text(f), decl) === name);
  if (candidates.length === 0) candidates = files.filter((f) => (textAtRange(ws.text(f), decl) ?? '') !== '');
  if (candidates.length <= 1) return candidates[0];
  // Several files have this text at this range: ask the compiler at each candidate.
  const wanted = useTip && parseTooltip(useTip());
  const matching = [];
  for (const f of candidates) {
    const line = lineOf(ws.text(f), decl.StartLine - 1);
    const ident = identifierAt(line, decl.StartColumn);
    if (!ident) continue;
    const here = await askAt(ws, ws.projectFor(f) ?? project, f, decl.StartLine - 1, ident, line);
    if (!sameRange(here.decl, decl)) continue;
    const tip = parseTooltip(here.tipLines());
    if (!wanted || (tip.signature === wanted.signature && tip.fullName === wanted.fullName)) matching.push(f);
  }
  if (matching.includes(preferFile)) return preferFile;
  return matching[0] ?? (candidates.includes(preferFile) ? preferFile : candidates[0]);
}

/**
 * Resolve the symbol at an LSP position of an open file. Returns null when no
 * identifier is there, else {name, range (of the use), decl: {file, range} | null, tip}.
 */
export async function resolveAt(ws, project, file, position) {
  const text = ws.text(file);
  const lineText = lineOf(text, position.line);
  const ident = identifierAt(lineText, position.character);
  if (!ident) return null;
  const asked = await askAt(ws, project, file, position.line, ident, lineText);
  const tipLines = asked.tipLines();
  let decl = null;
  if (asked.decl) {
    const declFile = await declaringFile(ws, project, asked.decl, ident.name, () => tipLines, file);
    if (declFile) decl = { file: declFile, range: asked.decl };
  }
  return { name: ident.name, line: position.line, ident, decl, tipLines, tip: parseTooltip(tipLines) };
}
