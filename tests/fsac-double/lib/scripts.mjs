// F# scripts (.fsx, .fsscript, .sketchfs, and `untitled:` documents) as FSAC
// treats them: each open script is checked standalone with its own "script
// project" — the files its `#load` directives bring in (in directive order,
// loaded scripts' own #loads first), then the script itself — like FCS's
// script load closure. Errors inside loaded files are reported on the script's
// `#load` directive as FS0085, a missing loaded file as FS0079, with the
// message texts of FCS (CompilerDiagnostics.fs, FSStrings.resx).
import fs from 'node:fs';
import path from 'node:path';
import { codeOnly } from './lexer.mjs';

const SCRIPT_EXTENSIONS = ['.fsx', '.fsscript', '.sketchfs']; // FSAC's Utils.isAScript (case-sensitive)

/** FSAC treats these as scripts: by extension, and every `untitled:` document. */
export const isScript = (file) => file.startsWith('untitled:') || SCRIPT_EXTENSIONS.some((e) => file.endsWith(e));

/**
 * The file name the compiler sees. FSAC maps `untitled:Untitled-1` to the
 * relative path `Untitled-1.fsx` (Utils.fs FileUriToLocalPath), which FCS
 * resolves against the process directory; the double does the same.
 */
export function fcsNameOf(file) {
  if (!file.startsWith('untitled:')) return file;
  const name = decodeURIComponent(file.slice('untitled:'.length)).replace(/^\/+/, '').replace(/[\\/:*?"<>|]/g, '_') || 'Untitled';
  return path.resolve(process.cwd(), `${name}.fsx`);
}

/**
 * `#load` directives of a script's text: [{range (LSP), paths: [raw string]}].
 * A directive is `#load` at the start of a line (after blanks) outside comments
 * and strings, followed by one or more string literals ("…" or @"…").
 */
export function loadDirectives(text) {
  const code = codeOnly(text).split('\n');
  const lines = text.split('\n');
  const out = [];
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const m = /^(\s*)#load\b/.exec(code[i] ?? '');
    if (!m) return;
    const re = /@?"((?:[^"\\]|\\.)*)"/g;
    re.lastIndex = m[0].length;
    const paths = [];
    let end = m[0].length;
    let a;
    while ((a = re.exec(line))) {
      if (line.slice(end, a.index).trim() !== '') break;
      paths.push(a[0].startsWith('@') ? a[1] : a[1].replace(/\\(.)/g, '$1'));
      end = a.index + a[0].length;
    }
    if (paths.length) out.push({ range: { start: { line: i, character: m[1].length }, end: { line: i, character: end } }, paths });
  });
  return out;
}

/**
 * The load closure of an open script. `textOf(file)` gives current text (open
 * buffers first). Returns {compile: [files…, script], loads: [{range, files: [abs]}],
 * missing: [{range, file}]} — loads/missing list the root script's directives only.
 */
export function scriptClosure(script, textOf) {
  const compile = [];
  const loads = [];
  const missing = [];
  const visiting = new Set();
  const baseDir = (f) => path.dirname(fcsNameOf(f));
  const visit = (file, isRoot) => {
    visiting.add(file);
    for (const d of loadDirectives(textOf(file))) {
      const files = [];
      for (const p of d.paths) {
        const abs = path.normalize(path.isAbsolute(p) ? p : path.resolve(baseDir(file), p));
        if (!fs.existsSync(abs)) { if (isRoot) missing.push({ range: d.range, file: abs }); continue; }
        files.push(abs);
        if (compile.includes(abs) || visiting.has(abs)) continue;
        if (isScript(abs)) visit(abs, false);
        if (!compile.includes(abs)) compile.push(abs);
      }
      if (isRoot && files.length) loads.push({ range: d.range, files });
    }
  };
  visit(script, true);
  compile.push(script);
  return { compile, loads, missing };
}

const LOADED_ISSUES = {
  error: 'One or more errors in loaded file.\n', // HashLoadedSourceHasIssues2 (FS0085)
  warning: 'One or more warnings in loaded file.\n', // HashLoadedSourceHasIssues1
  info: 'One or more informational messages in loaded file.\n', // HashLoadedSourceHasIssues0
};

/**
 * The compiler diagnostics FSAC publishes for a script, given `all` (the
 * compiler's diagnostics of the script's compilation, every file, as
 * compiler.diagnostics() returns them): FS0079 per missing loaded file, one
 * FS0085 per (#load directive, loaded file with diagnostics) carrying the first
 * error's (else warning's) text, then the script's own diagnostics.
 */
export function scriptDiagnostics(project, script, all) {
  const own = all.filter((d) => d.fileName === fcsNameOf(script));
  const out = [];
  for (const m of project.missing) {
    out.push(synthetic(m.range, 79, 'error', `Could not load file '${m.file}' because it does not exist or is inaccessible`));
  }
  for (const load of project.loads) {
    for (const f of load.files) {
      const ds = all.filter((d) => d.fileName === f && d.severity !== 'hidden');
      if (!ds.length) continue;
      const first = ds.find((d) => d.severity === 'error') ?? ds.find((d) => d.severity === 'warning') ?? ds[0];
      const kind = ds.some((d) => d.severity === 'error') ? 'error' : ds.some((d) => d.severity === 'warning') ? 'warning' : 'info';
      out.push(synthetic(load.range, 85, kind === 'error' ? 'error' : 'warning', LOADED_ISSUES[kind] + first.message));
    }
  }
  return [...out, ...own];
}

/** A diagnostic record shaped like compiler.diagnostics()' (1-based lines, 0-based columns). */
function synthetic(range, number, severity, message) {
  return {
    fileName: null,
    startLine: range.start.line + 1, startColumn: range.start.character,
    endLine: range.end.line + 1, endColumn: range.end.character,
    message, severity, number,
  };
}
