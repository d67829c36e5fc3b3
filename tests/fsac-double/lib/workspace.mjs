// The loaded workspace: projects (in load order), their compilations (the
// referenced projects' sources first, one compilation per project), the open
// documents, and a cache of per-file check results invalidated on every edit.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compiler } from './compiler.mjs';

export class Workspace {
  constructor() {
    this.projects = new Map(); // fsproj path -> project (see projects.mjs readFsproj)
    this.documents = new Map(); // file path -> {uri, text, version}
    this.generation = 0; // bumped on every source change
    this.cache = new Map(); // `${project}|${file}` -> {generation, results}
    this.diskText = new Map(); // file -> text read from disk during this generation
  }

  setProjects(list) {
    this.projects = new Map(list.map((p) => [p.path, p]));
    this.invalidate();
  }

  invalidate() {
    this.generation++;
    this.cache.clear();
    this.diskText.clear();
  }

  /** Current text of a file: the open buffer, else the file on disk ('' if unreadable). */
  text(file) {
    const doc = this.documents.get(file);
    if (doc) return doc.text;
    if (!this.diskText.has(file)) {
      let text = '';
      try { text = fs.readFileSync(file, 'utf8'); } catch { /* missing file: empty */ }
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

  /** Projects that can see declarations of `file`: owners and their transitive dependents. */
  projectsSeeing(file) {
    return [...this.projects.values()].filter((p) => this.compileFiles(p).includes(file));
  }

  /** The project whose compilation answers questions about `file` (FSAC: the first loaded owner). */
  projectFor(file) {
    return this.projectsOwning(file)[0];
  }

  /** The URI to report for a file: the client's URI when open, else a file:// URI. */
  uriFor(file) {
    return this.documents.get(file)?.uri ?? uriOf(file);
  }

  /** Check `file` in `project`'s compilation, reusing results until the next edit. */
  async check(project, file) {
    const key = `${project.path}|${file}`;
    const hit = this.cache.get(key);
    if (hit && hit.generation === this.generation) return hit.results;
    const fcs = await compiler();
    const files = this.compileFiles(project);
    const sources = files.map((f) => this.text(f));
    const results = fcs.checkFile(project.path, file, files, sources);
    this.cache.set(key, { generation: this.generation, results });
    return results;
  }
}

export const uriOf = (file) => pathToFileURL(file).href;
/** Local path of a file: URI (other schemes, e.g. untitled:, are kept as they are). */
export function pathOf(uri) {
  if (!uri.startsWith('file:')) return uri;
  try { return path.normalize(fileURLToPath(uri)); } catch { return uri; }
}
