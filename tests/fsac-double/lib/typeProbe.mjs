// Resolving a type name as the compiler printed it at a position, in that position's scope.
// FCS prints a type relative to the opens and modules in scope where it is shown (`Inner.Box`,
// `Shipment`), and fable-standalone gives no symbol objects, so the name is written back into
// the file and the compiler is asked what it means there: the file is checked once with one
// probe line, `module __FsacDoubleTypeProbe = let __probe = typeof<NAME<_, …>>`, added at the end
// of the innermost module (or namespace, or file) around the position, where everything in
// scope at the position is in scope too; the declaration location of NAME in that line is the
// type's. The probe check is not cached and changes nothing the other requests see.
import { compiler } from './compiler.mjs';
import { codeOnly } from './lexer.mjs';
import { declaringFile, textAtRange } from './resolve.mjs';
import { fcsNameOf } from './scripts.mjs';
import { lastSegment } from './typeText.mjs';

const PROBE_MODULE = '__FsacDoubleTypeProbe';
const NESTED_MODULE = /^(\s*)module\s+(?:(?:private|internal|public|rec)\s+)*(?:``[^`]*``|[\w'.])+\s*=\s*$/;

const indentOf = (line) => (line.trim() ? line.length - line.trimStart().length : null);

/**
 * Where the probe line goes for a position on `line0` of `text`: after the last code line of
 * the innermost nested module (`module X =` with its body below) that holds the line, at its
 * body's indentation; else after the last code line of the namespace section or the file.
 */
export function probeInsertion(text, line0) {
  const lines = codeOnly(text).split('\n');
  let innermost = null;
  for (let i = 0; i < line0 && i < lines.length; i++) {
    const header = NESTED_MODULE.exec(lines[i]);
    if (!header) continue;
    let last = i;
    let bodyIndent = null;
    for (let j = i + 1; j < lines.length; j++) {
      const indent = indentOf(lines[j]);
      if (indent === null) continue;
      if (indent <= header[1].length) break;
      if (bodyIndent === null) bodyIndent = indent;
      last = j;
    }
    if (line0 <= last && bodyIndent !== null) innermost = { line: last, indent: bodyIndent };
  }
  if (innermost) return innermost;
  const nextNamespace = lines.findIndex((l, i) => i > line0 && /^namespace\b/.test(l));
  const end = nextNamespace < 0 ? lines.length : nextNamespace;
  let last = end - 1;
  while (last > 0 && indentOf(lines[last]) === null) last--;
  return { line: Math.max(last, 0), indent: 0 };
}

/**
 * The declaration {file, range} of the type printed as `named` ({name, arity}) at `line0` of
 * the context's file, or null when the compiler resolves it to no declaration in the
 * workspace's sources (FSharp.Core, the reference assemblies).
 */
export async function resolveTypeName(ws, ctx, line0, named) {
  const text = ws.text(ctx.file);
  const at = probeInsertion(text, line0);
  const typeArguments = named.arity > 0 ? `<${Array(named.arity).fill('_').join(', ')}>` : '';
  const prefix = `${' '.repeat(at.indent)}module ${PROBE_MODULE} = let __probe = typeof<`;
  const probeLine = `${prefix}${named.name}${typeArguments}>`;
  const lines = text.split('\n');
  lines.splice(at.line + 1, 0, probeLine);
  const fcs = await compiler();
  const files = ws.compileFiles(ctx.project);
  const sources = files.map((f) => (f === ctx.file ? lines.join('\n') : ws.text(f)));
  const results = fcs.checkFile(ctx.project.path, fcsNameOf(ctx.file), files.map(fcsNameOf), sources);
  const column = prefix.length + named.name.length; // just after the name, as fable-standalone counts
  const decl = fcs.declarationAt(results, at.line + 2, column, probeLine);
  if (!decl) return null;
  // The range has no file: a declaration in the sources has the type's name there. A range
  // into FSharp.Core's or another assembly's sources names no workspace file.
  const name = lastSegment(named.name);
  const exact = files.filter((f) => textAtRange(ws.text(f), decl) === name);
  if (exact.length === 0) return null;
  const file = exact.length === 1 ? exact[0]
    : await declaringFile(ws, ctx.project, decl, name, () => fcs.tooltipAt(results, at.line + 2, column, probeLine), ctx.file);
  return file ? { file, range: decl } : null;
}
