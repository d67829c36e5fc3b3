// The loaded workspace: projects (in load order), their compilations (the
// referenced projects' sources first, one compilation per project), the open
// documents, and a cache of per-file check results invalidated on every edit.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiler } from './compiler.mjs';
import { isScript, fcsNameOf, scriptClosure } from './scripts.mjs';

export class Workspace {
  constructor() {
    this.projects = new Map(); // fsproj path -> project (see projects.mjs readFsproj)
    this.documents = new Map(); // file path -> {uri, text, version}
    this.generation = 0; // bumped on every source change
    this.cache = new Map(); // `${project}|${file}` -> {generation, results}
    this.diskText = new Map(); // file -> text read from disk during this generation
    this.scriptProjects = new Map(); // open script -> its script project, this generation
  }

  setProjects(list) {
    this.projects = new Map(list.map((p) => [p.path, p]));
    this.invalidate();
  }

  invalidate() {
    this.generation++;
    this.cache.clear();
    this.diskText.clear();
    this.scriptProjects.clear();
  }

  /**
   * Current text of a file: the open buffer, else the file on disk ('' if unreadable). A disk
   * file's UTF-8 byte-order mark is not part of its text: FSAC reads files with .NET's
   * `File.ReadAllText`, which strips it (and the F# lexer rejects a U+FEFF with FS0010).
   */
  text(file) {
    const doc = this.documents.get(file);
    if (doc) return doc.text;
    if (!this.diskText.has(file)) {
      let text = '';
      try { text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, ''); } catch { /* missing file: empty */ }
      this.diskText.set(file, text);
    }
    return this.diskText.get(file);
  }

  /** Projects referenced by `project`, transitively, dependencies first. */
  dependencies(project) {
    const order = [];
    const seen = new Set();
    const visit = (p) => {
      for (const ref of p.projectReferences) {
        const dep = this.projects.get(ref);
        if (!dep || seen.has(ref)) continue;
        seen.add(ref);
        visit(dep);
        order.push(dep);
      }
    };
    visit(project);
    return order;
  }

  /** Compile list of a project's compilation: referenced projects' files, then its own. */
  compileFiles(project) {
    const files = [];
    for (const p of [...this.dependencies(project), project]) {
      for (const c of p.compile) if (!files.includes(c.path)) files.push(c.path);
    }
    return files;
  }

  /** Projects whose own compile items include `file`, in load order. */
  projectsOwning(file) {
    return [...this.projects.values()].filter((p) => p.compile.some((c) => c.path === file));
  }

  /**
   * Projects that can see declarations of `file`: owners and their transitive
   * dependents; with `scripts`, also the open scripts that are or #load it.
   */
  projectsSeeing(file, { scripts = false } = {}) {
    const seeing = [...this.projects.values()].filter((p) => this.compileFiles(p).includes(file));
    if (scripts) {
      for (const sp of this.openScriptProjects()) if (sp.compile.some((c) => c.path === file)) seeing.push(sp);
    }
    return seeing;
  }

  /**
   * The project whose compilation answers questions about `file`: an open
   * script's own script project (FSAC checks every script with script options,
   * even one listed in an fsproj), else the first loaded owner.
   */
  projectFor(file) {
    if (isScript(file)) return this.documents.has(file) ? this.scriptProject(file) : undefined;
    return this.projectsOwning(file)[0];
  }

  /** The script projects of all open scripts. */
  openScriptProjects() {
    return [...this.documents.keys()].filter(isScript).map((f) => this.scriptProject(f));
  }

  /** An open script's project: its #load closure then itself; rebuilt after every change. */
  scriptProject(file) {
    let sp = this.scriptProjects.get(file);
    if (!sp) {
      const closure = scriptClosure(file, (f) => this.text(f));
      sp = {
        path: `${fcsNameOf(file)}.fsproj`,
        isScript: true,
        script: file,
        compile: closure.compile.map((p) => ({ path: p })),
        projectReferences: [],
        loads: closure.loads,
        missing: closure.missing,
      };
      this.scriptProjects.set(file, sp);
    }
    return sp;
  }

  /**
   * The URI to report for a file. FSAC rebuilds every URI it sends from the file's path with
   * its own encoder (fsac-protocol.md §5.2), open documents included, so the URI can differ
   * byte-wise from the one the client opened the file with (a client's `x@y.fs` comes back as
   * `x%40y.fs`). Only a non-file URI (an `untitled:` buffer) is reported as the client sent it.
   */
  uriFor(file) {
    const clientUri = this.documents.get(file)?.uri;
    if (clientUri && !clientUri.startsWith('file:')) return clientUri;
    return uriOf(file);
  }

  /** Check `file` in `project`'s compilation, reusing results until the next edit. */
  async check(project, file) {
    const key = `${project.path}|${file}`;
    const hit = this.cache.get(key);
    if (hit && hit.generation === this.generation) return hit.results;
    const fcs = await compiler();
    const files = this.compileFiles(project);
    const sources = files.map((f) => this.text(f));
    const results = fcs.checkFile(project.path, fcsNameOf(file), files.map(fcsNameOf), sources);
    this.cache.set(key, { generation: this.generation, results });
    return results;
  }
}

/** Bytes FSAC's encoder writes as they are: ASCII letters, digits and `+ / . - _ ~`. */
const BARE_URI_BYTES = new Set(Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/.-_~'));

/**
 * A file path as FSAC writes it in a URI (Utils.fs `filePathToUri`, with the UTF-8 encoding of
 * non-ASCII from FSAC #1455): `\\` becomes `/`, the bytes above stay, every other byte of the
 * path's UTF-8 is `%XX` in upper-case hex (so `@`, `(`, `)`, `:` and `,` are encoded where
 * Node's `pathToFileURL` and most editors leave them bare).
 */
export function uriOf(file) {
  let encoded = '';
  for (const byte of Buffer.from(file.replace(/\\/g, '/'), 'utf8')) {
    encoded += BARE_URI_BYTES.has(byte) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded.startsWith('//') ? `file:${encoded}` : `file:///${encoded.replace(/^\/+/, '')}`;
}
/** Local path of a file: URI (other schemes, e.g. untitled:, are kept as they are). */
export function pathOf(uri) {
  if (!uri.startsWith('file:')) return uri;
  try { return path.normalize(fileURLToPath(uri)); } catch { return uri; }
}
