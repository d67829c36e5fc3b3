// Project model: reads .sln (text), .slnx (XML) and .fsproj files the way
// FSAC's loader (Ionide.ProjInfo) presents them, for what the double needs:
// compile order (Compile Include, Link), ProjectReference, PackageReference,
// and the workspace peek (solutions + directory of fsprojs).
// Not an MSBuild evaluator: no imports, conditions, globs or property expansion.
import fs from 'node:fs';
import path from 'node:path';

const SOLUTION_FOLDER_GUID = '2150E333-8FDC-42A3-9474-1A3956D46DE8';
const norm = (p) => p.replace(/\\/g, '/');
const attr = (tag, name) => {
  const m = new RegExp(`\\b${name}\\s*=\\s*"([^"]*)"`, 'i').exec(tag);
  return m ? decodeXml(m[1]) : undefined;
};
const decodeXml = (s) => s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const stripXmlComments = (s) => s.replace(/<!--[\s\S]*?-->/g, '');

/**
 * Throws unless the tags of `xml` nest: every start tag closed by an end tag of the same
 * name, one root element. MSBuild refuses to evaluate a project file that is not well-formed
 * XML, so FSAC's loader reports it as a project error (code 101) instead of loading it.
 * Comments, CDATA sections, processing instructions and the DOCTYPE are skipped.
 */
function assertWellFormed(raw, projectPath) {
  const lineColumn = (offset) => {
    const before = raw.slice(0, offset).split('\n');
    return `line ${before.length}, position ${before.at(-1).length + 1}`;
  };
  const stack = [];
  let roots = 0;
  const re = /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<!DOCTYPE[^>]*>|<(\/?)([^\s/>]+)(?:"[^"]*"|'[^']*'|[^>"'])*?(\/?)>/g;
  for (let m; (m = re.exec(raw));) {
    const [, closing, name, selfClosing] = m;
    if (!name) continue;
    if (closing) {
      const open = stack.pop();
      if (!open || open.name !== name) {
        throw new Error(`${projectPath}: the '${open?.name ?? name}' start tag does not match the end tag of '${name}' (${lineColumn(m.index)})`);
      }
    } else if (!selfClosing) {
      if (stack.length === 0) roots++;
      stack.push({ name, at: m.index });
    } else if (stack.length === 0) roots++;
  }
  if (stack.length) throw new Error(`${projectPath}: the '${stack.at(-1).name}' start tag is never closed (${lineColumn(stack.at(-1).at)})`);
  if (roots !== 1) throw new Error(`${projectPath}: expected one root element, found ${roots}`);
}

/** Parse an .fsproj. Throws if the file is missing, not well-formed XML or not an MSBuild project. */
export function readFsproj(projectPath) {
  const raw = fs.readFileSync(projectPath, 'utf8').replace(/^\uFEFF/, '');
  assertWellFormed(raw, projectPath);
  const xml = stripXmlComments(raw);
  if (!/<Project\b/.test(xml)) throw new Error(`not an MSBuild project: ${projectPath}`);
  const dir = path.dirname(projectPath);
  const prop = (name) => {
    const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
    return m ? m[1].trim() : undefined;
  };
  const items = (kind) => {
    const found = [];
    const re = new RegExp(`<${kind}\\b([^>]*?)(/>|>([\\s\\S]*?)</${kind}>)`, 'g');
    for (let m; (m = re.exec(xml));) {
      const children = {};
      for (const c of (m[3] ?? '').matchAll(/<(\w+)>([^<]*)<\/\1>/g)) children[c[1]] = decodeXml(c[2].trim());
      found.push({ tag: m[1], children });
    }
    return found;
  };
  const compile = items('Compile').filter((it) => attr(it.tag, 'Include')).map((it) => {
    const include = norm(attr(it.tag, 'Include'));
    const file = path.resolve(dir, include);
    const link = attr(it.tag, 'Link') ?? it.children.Link;
    return { path: file, virtualPath: link ? norm(link) : include, link: link ? norm(link) : undefined };
  });
  const projectReferences = items('ProjectReference').map((it) => path.resolve(dir, norm(attr(it.tag, 'Include'))));
  const packageReferences = items('PackageReference').map((it) => ({
    Name: attr(it.tag, 'Include') ?? attr(it.tag, 'Update'),
    Version: attr(it.tag, 'Version') ?? it.children.Version ?? '',
  }));
  const name = path.basename(projectPath, '.fsproj');
  const targetFramework = prop('TargetFramework') ?? (prop('TargetFrameworks') ?? 'net8.0').split(';')[0];
  return {
    path: projectPath,
    dir,
    name,
    assemblyName: prop('AssemblyName') ?? name,
    outputType: (prop('OutputType') ?? 'Library').toLowerCase() === 'exe' ? 'exe' : 'lib',
    targetFramework,
    isTestProject: (prop('IsTestProject') ?? '').toLowerCase() === 'true',
    compile,
    projectReferences,
    packageReferences,
  };
}

/** Parse a text-format .sln: {path, items (peek shape), projects (absolute paths)}. */
export function readSln(slnPath) {
  const text = fs.readFileSync(slnPath, 'utf8');
  if (!/Microsoft Visual Studio Solution File/.test(text)) throw new Error(`not a solution file: ${slnPath}`);
  const dir = path.dirname(slnPath);
  const entries = new Map();
  const re = /^Project\("\{([^}]+)\}"\)\s*=\s*"([^"]*)",\s*"([^"]*)",\s*"\{([^}]+)\}"/gm;
  for (let m; (m = re.exec(text));) {
    const isFolder = m[1].toUpperCase() === SOLUTION_FOLDER_GUID;
    entries.set(m[4].toUpperCase(), {
      guid: m[4].toUpperCase(), name: m[2], isFolder,
      path: isFolder ? undefined : path.resolve(dir, norm(m[3])),
      parent: undefined, children: [],
    });
  }
  const nested = /GlobalSection\(NestedProjects\)[^\n]*\n([\s\S]*?)EndGlobalSection/.exec(text);
  if (nested) {
    for (const m of nested[1].matchAll(/\{([^}]+)\}\s*=\s*\{([^}]+)\}/g)) {
      const child = entries.get(m[1].toUpperCase());
      const parent = entries.get(m[2].toUpperCase());
      if (child && parent) { child.parent = parent; parent.children.push(child); }
    }
  }
  const toItem = (e) => e.isFolder
    ? { Guid: e.guid, Name: e.name, Kind: { Kind: 'folder', Data: { Items: e.children.map(toItem), Files: [] } } }
    : { Guid: e.guid, Name: e.path, Kind: { Kind: 'msbuildFormat', Data: { Configurations: [] } } };
  const all = [...entries.values()];
  return {
    path: slnPath,
    items: all.filter((e) => !e.parent).map(toItem),
    projects: all.filter((e) => !e.isFolder).map((e) => e.path),
  };
}

/** Parse an .slnx (XML solution): folders nest by their "/a/b/" names. */
export function readSlnx(slnxPath) {
  const xml = stripXmlComments(fs.readFileSync(slnxPath, 'utf8'));
  if (!/<Solution\b/.test(xml)) throw new Error(`not an slnx solution: ${slnxPath}`);
  const dir = path.dirname(slnxPath);
  const root = { children: [], folders: new Map() };
  const folderFor = (name) => {
    let node = root;
    for (const part of name.split('/').filter(Boolean)) {
      if (!node.folders.has(part)) {
        const f = { name: part, children: [], folders: new Map() };
        node.folders.set(part, f);
        node.children.push(f);
      }
      node = node.folders.get(part);
    }
    return node;
  };
  const projects = [];
  let current = root;
  for (const m of xml.matchAll(/<(\/?)(Folder|Project)\b([^>]*?)(\/?)>/g)) {
    const [, closing, kind, attrs, selfClosing] = m;
    if (kind === 'Folder') {
      if (closing) current = root;
      else { const f = folderFor(attr(attrs, 'Name') ?? ''); current = selfClosing ? root : f; }
    } else if (!closing) {
      const p = path.resolve(dir, norm(attr(attrs, 'Path') ?? ''));
      projects.push(p);
      current.children.push({ project: p });
    }
  }
  let n = 0;
  const guid = () => `00000000-0000-0000-0000-${String(++n).padStart(12, '0')}`;
  const toItem = (node) => node.project
    ? { Guid: guid(), Name: node.project, Kind: { Kind: 'msbuildFormat', Data: { Configurations: [] } } }
    : { Guid: guid(), Name: node.name, Kind: { Kind: 'folder', Data: { Items: node.children.map(toItem), Files: [] } } };
  return { path: slnxPath, items: root.children.map(toItem), projects };
}

/**
 * Parse an .slnf (a JSON solution filter): the solution it names (relative to the filter,
 * `\\` separators allowed), keeping only the projects it lists (relative to that solution).
 * Folders left with no project are dropped. A filter whose solution cannot be read throws,
 * so peek skips it like any unparseable solution.
 */
export function readSlnf(slnfPath) {
  const filter = JSON.parse(fs.readFileSync(slnfPath, 'utf8').replace(/^\uFEFF/, ''));
  const written = filter?.solution?.path;
  if (typeof written !== 'string' || !Array.isArray(filter?.solution?.projects)) throw new Error(`not a solution filter: ${slnfPath}`);
  const base = readSolution(path.resolve(path.dirname(slnfPath), norm(written)));
  const baseDir = path.dirname(base.path);
  const kept = new Set(filter.solution.projects.filter((p) => typeof p === 'string').map((p) => path.resolve(baseDir, norm(p))));
  const keep = (items) => items.flatMap((item) => {
    if (item.Kind.Kind !== 'folder') return kept.has(item.Name) ? [item] : [];
    const inner = keep(item.Kind.Data.Items);
    return inner.length ? [{ ...item, Kind: { Kind: 'folder', Data: { ...item.Kind.Data, Items: inner } } }] : [];
  });
  return { path: slnfPath, items: keep(base.items), projects: base.projects.filter((p) => kept.has(p)) };
}

export function readSolution(p) {
  const lower = p.toLowerCase();
  if (lower.endsWith('.slnx')) return readSlnx(p);
  if (lower.endsWith('.slnf')) return readSlnf(p);
  return readSln(p);
}

/**
 * FSAC's workspace peek (Ionide.ProjInfo WorkspacePeek): solutions found up to
 * `deep` levels below `directory` (root = level 0), then one Directory entry.
 */
export function peek(directory, deep = 2, excludedDirs = []) {
  const excluded = new Set(excludedDirs.map((d) => d.toLowerCase()));
  const solutions = [];
  const fsprojs = [];
  const walk = (dir, level) => {
    let entries;
    try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (level < deep && !excluded.has(e.name.toLowerCase())) walk(full, level + 1);
      } else if (/\.(sln|slnx|slnf)$/i.test(e.name)) solutions.push(full);
      else if (/\.fsproj$/i.test(e.name)) fsprojs.push(full);
    }
  };
  walk(directory, 0);
  const found = [];
  for (const s of solutions) {
    try {
      const sol = readSolution(s);
      found.push({ Type: 'solution', Data: { Path: s, Items: sol.items, Configurations: [] }, projects: sol.projects });
    } catch { /* unparseable solutions are skipped, as in FSAC */ }
  }
  found.push({ Type: 'directory', Data: { Directory: directory, Fsprojs: fsprojs.sort() }, projects: fsprojs.sort() });
  return found;
}

/** What AutomaticWorkspaceInit loads: the solution with most projects, else the directory's fsprojs. */
export function chooseAutomatic(found) {
  const sols = found.filter((f) => f.Type === 'solution');
  if (sols.length === 0) return found.find((f) => f.Type === 'directory')?.projects ?? [];
  return [...sols].sort((a, b) => b.projects.length - a.projects.length)[0].projects;
}

/** The peek result on the wire (drops the internal `projects` field). */
export const peekForWire = (found) => found.map(({ Type, Data }) => ({ Type, Data }));
