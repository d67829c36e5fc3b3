// The shape of an application around a position, read from the text as FSAC reads it from
// the parse tree (ParseFileResults' IsPosContainedInApplication,
// GetAllArgumentsForFunctionApplicationAtPosition, FindParameterLocations): for a curried
// application `f a b`, the function and the ranges of its arguments on that line; for a
// parenthesised argument list `M(a, b)`, the name before the parenthesis and where the
// commas are. Only the layout is read here; what the names mean is asked of the compiler.
import { codeOnly } from './lexer.mjs';

const KEYWORDS = new Set(('abstract and as assert base begin class default delegate do done downcast downto elif else end '
  + 'exception extern finally fixed for fun function global if in inherit inline interface internal lazy let match '
  + 'member module mutable namespace new of open or override private public rec return select sig static struct '
  + 'then to try type upcast use val void when while with yield').split(' '));
const LITERAL_WORDS = new Set(['true', 'false', 'null']);
const OPERATOR_CHARS = '!%&*+-./<=>?@^|~:$';
const OPENERS = { '(': ')', '[': ']', '{': '}' };

const isIdentStart = (c) => c !== undefined && /[A-Za-z_\u00C0-\uFFFF]/.test(c);
const isIdentPart = (c) => c !== undefined && /[A-Za-z0-9_'\u00C0-\uFFFF]/.test(c);

/** End offset of the string literal starting at `i` of `line` (regular, verbatim, triple, interpolated). */
function stringEnd(line, i) {
  let j = i;
  let verbatim = false;
  let interpolated = false;
  while (line[j] === '$' || line[j] === '@') { if (line[j] === '@') verbatim = true; else interpolated = true; j++; }
  if (line.startsWith('"""', j)) {
    const close = line.indexOf('"""', j + 3);
    return close < 0 ? line.length : close + 3;
  }
  j++;
  let holes = 0;
  while (j < line.length) {
    const c = line[j];
    if (interpolated && c === '{' && line[j + 1] !== '{') holes++;
    else if (interpolated && c === '}' && holes > 0) holes--;
    else if (holes === 0 && !verbatim && c === '\\') j++;
    else if (holes === 0 && c === '"') {
      if (verbatim && line[j + 1] === '"') { j++; } else return j + 1;
    }
    j++;
  }
  return line.length;
}

/** End offset of the bracket group opening at `i`, or -1 when it does not close on the line. */
function groupEnd(line, i) {
  const stack = [];
  for (let j = i; j < line.length; j++) {
    const c = line[j];
    if (c === '"' || ((c === '@' || c === '$') && (line[j + 1] === '"' || line[j + 1] === '$' || line[j + 1] === '@'))) { j = stringEnd(line, j) - 1; continue; }
    if (OPENERS[c]) stack.push(OPENERS[c]);
    else if (c === ')' || c === ']' || c === '}') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return j + 1;
    }
  }
  return -1;
}

/**
 * The atoms of one line: identifiers with their `.member` chains and indexers, literals and
 * closed bracket groups, as {start, end, kind: 'ident' | 'other', head?}, and the separators
 * that end an application (operators, keywords, `,`, `;`, unclosed brackets) as kind 'stop'.
 * `head` is the identifier an ident atom starts with, as {start, end}.
 */
export function lineAtoms(line) {
  const atoms = [];
  let i = 0;
  const chain = (atom) => {
    // `.Member`, `.[i]` and `[i]` right after an atom belong to it.
    for (;;) {
      if (line[atom.end] === '.' && (isIdentStart(line[atom.end + 1]) || line[atom.end + 1] === '`')) {
        let j = atom.end + 1;
        if (line.startsWith('``', j)) { const close = line.indexOf('``', j + 2); j = close < 0 ? line.length : close + 2; } else { while (isIdentPart(line[j])) j++; }
        atom.end = j;
        continue;
      }
      const bracketAt = line[atom.end] === '.' && line[atom.end + 1] === '[' ? atom.end + 1 : line[atom.end] === '[' ? atom.end : -1;
      if (bracketAt >= 0) {
        const end = groupEnd(line, bracketAt);
        if (end > 0) { atom.end = end; atom.indexed = true; continue; }
      }
      return atom;
    }
  };
  while (i < line.length) {
    const c = line[i];
    if (c === ' ' || c === '\t' || c === '\r') { i++; continue; }
    if (line.startsWith('//', i)) break;
    if (c === '"' || ((c === '@' || c === '$') && /^[@$]*"/.test(line.slice(i)))) {
      atoms.push(chain({ start: i, end: stringEnd(line, i), kind: 'other' }));
      i = atoms.at(-1).end;
      continue;
    }
    if (c === '\'' && line[i + 2] === '\'' ) { atoms.push({ start: i, end: i + 3, kind: 'other' }); i += 3; continue; }
    if (c === '`' && line[i + 1] === '`') {
      const close = line.indexOf('``', i + 2);
      const end = close < 0 ? line.length : close + 2;
      atoms.push(chain({ start: i, end, kind: 'ident', head: { start: i, end } }));
      i = atoms.at(-1).end;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (isIdentPart(line[j])) j++;
      const word = line.slice(i, j);
      if (KEYWORDS.has(word)) { atoms.push({ start: i, end: j, kind: 'stop' }); i = j; continue; }
      const kind = LITERAL_WORDS.has(word) ? 'other' : 'ident';
      atoms.push(chain({ start: i, end: j, kind, head: { start: i, end: j } }));
      i = atoms.at(-1).end;
      continue;
    }
    if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < line.length && /[0-9A-Za-z_.]/.test(line[j]) && !(line[j] === '.' && !/[0-9]/.test(line[j + 1] ?? ''))) j++;
      atoms.push({ start: i, end: j, kind: 'other' });
      i = j;
      continue;
    }
    if (OPENERS[c]) {
      const end = groupEnd(line, i);
      if (end < 0) { atoms.push({ start: i, end: i + 1, kind: 'stop' }); i++; continue; }
      atoms.push(chain({ start: i, end, kind: 'other' }));
      i = atoms.at(-1).end;
      continue;
    }
    let j = i + 1;
    if (OPERATOR_CHARS.includes(c)) while (j < line.length && OPERATOR_CHARS.includes(line[j])) j++;
    atoms.push({ start: i, end: j, kind: 'stop', text: line.slice(i, j) });
    i = j;
  }
  return atoms;
}

/**
 * The curried application on `line` that an atom ending at `end` belongs to:
 * {head, args, before} — the head atom (the function, possibly a dotted name), the argument
 * atoms in order, and the text of the stop just before the head (`|>` for a pipeline) — or null.
 */
export function applicationEndingAt(line, end) {
  const atoms = lineAtoms(line);
  const runs = [];
  let run = [];
  for (const atom of atoms) {
    if (atom.kind === 'stop') { if (run.length) runs.push(run); run = []; continue; }
    run.push(atom);
  }
  if (run.length) runs.push(run);
  const found = runs.find((r) => r.some((a) => a.end === end));
  if (!found) return null;
  const headIndex = atoms.indexOf(found[0]);
  const before = headIndex > 0 ? atoms[headIndex - 1].text ?? null : null;
  return { head: found[0], args: found.slice(1), before };
}

/**
 * The parenthesised argument list the offset `caret` of `text` is inside: {open, name, commas}
 * — the offset of its `(`, the offset just after the name written before it (`M(` or `M (`),
 * and the offsets of its top-level commas before the caret — or null when the caret is in no
 * parenthesis, or the parenthesis follows no name. At most `maxLines` lines back are searched.
 */
export function argumentListAround(text, caret, maxLines = 50) {
  const code = codeOnly(text);
  let depth = 0;
  let lines = 0;
  let open = -1;
  for (let i = caret - 1; i >= 0; i--) {
    const c = code[i];
    if (c === '\n' && ++lines > maxLines) return null;
    if (c === ')' || c === ']' || c === '}') depth++;
    else if (c === '[' || c === '{') { if (depth > 0) depth--; }
    else if (c === '(') {
      if (depth === 0) { open = i; break; }
      depth--;
    }
  }
  if (open < 0) return null;
  let nameEnd = open;
  while (nameEnd > 0 && (code[nameEnd - 1] === ' ' || code[nameEnd - 1] === '\t')) nameEnd--;
  if (code[nameEnd - 1] === '>') { // type arguments: M<int>(…)
    let angle = 0;
    for (let i = nameEnd - 1; i >= 0; i--) {
      if (code[i] === '>') angle++;
      else if (code[i] === '<' && --angle === 0) { nameEnd = i; break; }
      else if (code[i] === '\n') return null;
    }
  }
  const last = code[nameEnd - 1];
  if (!isIdentPart(last) && last !== '`') return null;
  const commas = [];
  depth = 0;
  for (let i = open + 1; i < caret; i++) {
    const c = code[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) commas.push(i);
  }
  return { open, name: nameEnd, commas };
}
