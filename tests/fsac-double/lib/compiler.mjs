// The F# compiler service: fable-standalone (FCS compiled to JavaScript) with
// fable-metadata's reference assemblies. Loading starts as soon as this module's
// startLoading() is called (at process start) but never blocks startup; callers
// await compiler() before asking anything.
//
// Conventions of fable-standalone (measured, see shared/fable-standalone-notes.md):
// lines are 1-based, columns 0-based in returned ranges; the `col` argument of
// position queries is "the column just after the character meant".
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { log } from './log.mjs';

const require = createRequire(import.meta.url);
let loading = null;

export function metadataDir() {
  return path.join(path.dirname(require.resolve('fable-metadata/package.json')), 'lib');
}

/** Names of the reference assemblies every compilation sees. */
export function referenceAssemblies() {
  return fs.readdirSync(metadataDir()).filter((f) => f.endsWith('.dll')).map((f) => f.slice(0, -4)).sort();
}

export function startLoading() {
  if (!loading) {
    loading = (async () => {
      // Let the event loop answer `initialize` first; the bundle import is synchronous work.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const t0 = Date.now();
      const bundle = path.join(path.dirname(require.resolve('fable-standalone/package.json')), 'dist', 'bundle.min.js');
      await import(pathToFileURL(bundle).href);
      const manager = globalThis.__FABLE_STANDALONE__.init();
      const dir = metadataDir();
      const checker = manager.CreateChecker(
        referenceAssemblies(),
        (name) => fs.readFileSync(path.join(dir, name.endsWith('.dll') ? name : `${name}.dll`)),
        [],
      );
      log(`compiler service ${manager.Version} loaded in ${Date.now() - t0} ms`);
      return new Compiler(manager, checker);
    })();
  }
  return loading;
}

export const compiler = () => startLoading();

const SEVERITY = { 0: 'hidden', 1: 'info', 2: 'warning', 3: 'error' };

class Compiler {
  constructor(manager, checker) {
    this.m = manager;
    this.checker = checker;
  }

  /** Type-check `fileName` in the context of the ordered file list. */
  checkFile(projectFile, fileName, fileNames, sources) {
    return this.m.ParseAndCheckFileInProject(this.checker, fileName, projectFile, fileNames, sources);
  }

  /**
   * Diagnostics of a check result. fable-standalone's Error records omit the
   * FS error number and the exact severity; both are read from the FCS
   * diagnostics array the records were mapped from (same order, same length).
   */
  diagnostics(results) {
    const errors = this.m.GetErrors(results);
    const raw = results.checkProjectResults?.diagnostics ?? [];
    return errors.map((e, i) => ({
      fileName: e.FileName,
      startLine: e.StartLine, startColumn: e.StartColumn, endLine: e.EndLine, endColumn: e.EndColumn,
      message: e.Message,
      severity: raw.length === errors.length ? SEVERITY[raw[i].severity?.tag] ?? (e.IsWarning ? 'warning' : 'error') : (e.IsWarning ? 'warning' : 'error'),
      number: raw.length === errors.length && Number.isInteger(raw[i].errorNum) ? raw[i].errorNum : null,
      subcategory: raw[i]?.subcategory,
    }));
  }

  /** Declaration range {StartLine (1-based), StartColumn (0-based), …} or undefined. */
  declarationAt(results, line1, col, lineText) {
    return this.m.GetDeclarationLocation(results, line1, col, lineText) ?? undefined;
  }

  /** Raw tooltip lines (tagged text joined with spaces by fable-standalone). */
  tooltipAt(results, line1, col, lineText) {
    const lines = this.m.GetToolTipText(results, line1, col, lineText) ?? [];
    return lines.filter((l) => l !== 'Cannot find ident for tooltip');
  }
}
