// End-to-end tests of the .NET double's project loading: real MSBuild design-time builds of
// fixtures that only MSBuild evaluation gets right (Directory.Build.props, multi-targeting,
// NuGet packages), each type-checked by FCS with no diagnostics. Run with
//   node --test tests/fsac-double-dotnet/test/
// after `dotnet build -c Release tests/fsac-double-dotnet/FsacDouble.fsproj`.
// The fixtures are copied to a temporary directory first (restore and the design-time build
// write obj/), and each test uses its own empty cache directory unless it tests the cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DLL = path.resolve(HERE, '../bin/Release/net10.0/FsacDouble.dll');
import { DoubleClient } from './client.mjs';

function copyFixture(name) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `fsac-double-dotnet-${name}-`));
  fs.cpSync(path.join(HERE, '../fixtures', name), root, { recursive: true });
  return root;
}
const freshCache = () => fs.mkdtempSync(path.join(os.tmpdir(), 'fsac-double-dotnet-cache-'));

/** Starts the double in `root`, loads the workspace; returns the client and the notifyWorkspace payloads. */
async function loaded(root, env = {}) {
  const c = new DoubleClient(root, { FSAC_DOUBLE_CACHE_DIR: freshCache(), ...env });
  await c.initialize();
  await c.workspaceLoaded(180000);
  const payloads = c.notifications.filter((n) => n.method === 'fsharp/notifyWorkspace').map((n) => JSON.parse(n.params.content));
  return { c, payloads };
}

async function checkedClean(c, file) {
  await c.open(file);
  const published = c.lastDiagnostics(file);
  assert.deepEqual(published.diagnostics, [], `${file}: ${JSON.stringify(published.diagnostics)}`);
}

test('a constant from Directory.Build.props reaches the compiler (#if), as in a build', { timeout: 240000 }, async () => {
  const root = copyFixture('defines');
  const { c, payloads } = await loaded(root);
  try {
    const project = payloads.find((p) => p.Kind === 'project').Data;
    assert.equal(project.Project, path.join(root, 'src/Lib/Lib.fsproj'));
    assert.deepEqual(project.Files, [path.join(root, 'src/Lib/Marked.fs')]);
    await checkedClean(c, path.join(root, 'src/Lib/Marked.fs'));
    const hover = await c.request('textDocument/hover', { textDocument: { uri: `file://${path.join(root, 'src/Lib/Marked.fs')}` }, position: { line: 3, character: 5 } });
    assert.equal(hover.contents[0].value, 'val marker: int');
  } finally {
    await c.stop();
  }
});

test('a multi-targeting project loads its first target framework, as FSAC does', { timeout: 240000 }, async () => {
  const root = copyFixture('multitarget');
  const { c, payloads } = await loaded(root);
  try {
    const project = payloads.find((p) => p.Kind === 'project').Data;
    assert.equal(project.Info.TargetFramework, 'net8.0');
    assert.deepEqual(project.Info.TargetFrameworks, ['net8.0', 'netstandard2.0']);
    await checkedClean(c, path.join(root, 'Framework.fs'));
  } finally {
    await c.stop();
  }
});

test('a restored PackageReference is referenced and used with no errors; unrestored it is error 100', { timeout: 240000 }, async () => {
  const root = copyFixture('packages');
  const before = await loaded(root);
  try {
    const error = before.payloads.find((p) => p.Kind === 'error');
    assert.equal(error?.Data.Code, 100, JSON.stringify(before.payloads));
    assert.equal(error.Data.Message, 'Project not restored');
  } finally {
    await before.c.stop();
  }
  // FSAC never restores; its users (and FSAC's own tests) restore first.
  execFileSync('dotnet', ['restore', root], { stdio: 'ignore' });
  const { c, payloads } = await loaded(root);
  try {
    const project = payloads.find((p) => p.Kind === 'project').Data;
    assert.ok(project.PackageReferences.some((r) => r.Name === 'Newtonsoft.Json' && r.Version === '13.0.3'), JSON.stringify(project.PackageReferences));
    assert.ok(project.References.some((r) => r.endsWith('/Newtonsoft.Json.dll')));
    await checkedClean(c, path.join(root, 'Json.fs'));
  } finally {
    await c.stop();
  }
});

test('a malformed project is MSBuild\'s "could not be loaded" (102, MSBuild\'s message); the cache serves a second start', { timeout: 240000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fsac-double-dotnet-malformed-'));
  fs.writeFileSync(path.join(root, 'Broken.fsproj'), '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n</Project>\n');
  const broken = await loaded(root);
  try {
    const error = broken.payloads.find((p) => p.Kind === 'error');
    assert.equal(error?.Data.Code, 102);
    assert.match(error.Data.Message, /MSB4025: The project file could not be loaded/);
  } finally {
    await broken.c.stop();
  }
  // Two starts on two copies of one fixture: the second loads from the cache.
  const cache = freshCache();
  for (const expectCached of [false, true]) {
    const copy = copyFixture('multitarget');
    const { c } = await loaded(copy, { FSAC_DOUBLE_CACHE_DIR: cache });
    try {
      assert.equal(/from the cache/.test(c.stderr), expectCached, c.stderr);
      await checkedClean(c, path.join(copy, 'Framework.fs'));
    } finally {
      await c.stop();
    }
  }
});
