// Workspace loading with FSAC's notifications (shared/fsac-protocol.md §6.2):
// projectLoading for every requested project, $/progress "Loading N Projects"
// (when the client supports work-done progress), then per project
// projectLoading + project | error, then workspaceLoad {Status:"finished"},
// then one fsharp/testDetected per parsed file.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { readFsproj } from './projects.mjs';
import { metadataDir, referenceAssemblies } from './compiler.mjs';
import { faults } from './faults.mjs';
import { uriOf } from './workspace.mjs';
import { log } from './log.mjs';

export const envelope = (Kind, Data) => ({ content: JSON.stringify({ Kind, Data }) });
const notifyWorkspace = (conn, kind, data) => conn.sendNotification('fsharp/notifyWorkspace', envelope(kind, data));

function projectData(p) {
  const tfm = p.targetFramework;
  const version = /^net(\d+\.\d+)$/.exec(tfm)?.[1];
  return {
    Project: p.path,
    Files: p.compile.map((c) => c.path),
    Output: path.join(p.dir, 'bin', 'Debug', tfm, `${p.assemblyName}.dll`),
    ProjectReferences: p.projectReferences.map((r) => ({ RelativePath: path.relative(p.dir, r), ProjectFileName: r })),
    PackageReferences: p.packageReferences.map((r) => ({ Name: r.Name, Version: r.Version, FullPath: '' })),
    References: referenceAssemblies().map((n) => path.join(metadataDir(), `${n}.dll`)),
    OutputType: p.outputType,
    Info: {
      IsTestProject: p.isTestProject,
      Configuration: 'Debug',
      IsPackable: true,
      TargetFramework: tfm,
      TargetFrameworkIdentifier: version ? '.NETCoreApp' : '.NETStandard',
      TargetFrameworkVersion: version ? `v${version}` : 'v2.0',
      RestoreSuccess: true,
      TargetFrameworks: [tfm],
      RunCmd: p.outputType === 'exe' ? { Command: 'dotnet', Arguments: path.join(p.dir, 'bin', 'Debug', tfm, `${p.assemblyName}.dll`) } : null,
      IsPublishable: p.outputType === 'exe' ? true : null,
    },
    Items: p.compile.map((c) => ({ Name: 'Compile', FilePath: c.path, VirtualPath: c.virtualPath, Metadata: c.link ? { Link: c.link } : {} })),
    AdditionalInfo: {},
  };
}

/** Load `projectPaths` into `ws`, sending FSAC's notifications. Resolves when finished. */
export async function loadWorkspace(conn, ws, projectPaths, { workDoneProgress }) {
  for (const p of projectPaths) notifyWorkspace(conn, 'projectLoading', { Project: p });
  let token = null;
  if (workDoneProgress) {
    token = randomUUID();
    try {
      await conn.sendRequest('window/workDoneProgress/create', { token });
      conn.sendNotification('$/progress', { token, value: { kind: 'begin', title: `Loading ${projectPaths.length} Projects` } });
    } catch (e) {
      log(`progress create refused: ${e.message}`);
      token = null;
    }
  }
  if (faults.slowLoadMs) await new Promise((resolve) => setTimeout(resolve, faults.slowLoadMs));
  const loaded = [];
  for (const p of projectPaths) {
    notifyWorkspace(conn, 'projectLoading', { Project: p });
    if (!fs.existsSync(p)) {
      notifyWorkspace(conn, 'error', { Code: 102, Message: `couldn't find project ${p}`, AdditionalData: { Project: p } });
      continue;
    }
    if (!p.endsWith('.fsproj')) {
      notifyWorkspace(conn, 'error', { Code: 102, Message: `Project language not supported: ${p}`, AdditionalData: { Project: p } });
      continue;
    }
    let project;
    try {
      project = readFsproj(p);
    } catch (e) {
      notifyWorkspace(conn, 'error', { Code: 101, Message: e.message, AdditionalData: { Project: p } });
      continue;
    }
    if (project.packageReferences.length > 0 && !fs.existsSync(path.join(project.dir, 'obj', 'project.assets.json'))) {
      notifyWorkspace(conn, 'error', { Code: 100, Message: 'Project not restored', AdditionalData: { Project: p } });
      continue;
    }
    loaded.push(project);
    notifyWorkspace(conn, 'project', projectData(project));
  }
  ws.setProjects(loaded);
  if (token) conn.sendNotification('$/progress', { token, value: { kind: 'end' } });
  notifyWorkspace(conn, 'workspaceLoad', { Status: 'finished' });
  const files = new Set(loaded.flatMap((p) => p.compile.map((c) => c.path)));
  for (const f of files) conn.sendNotification('fsharp/testDetected', { file: uriOf(f), tests: [] });
  log(`loaded ${loaded.length}/${projectPaths.length} projects`);
}
