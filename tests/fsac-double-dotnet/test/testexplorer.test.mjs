// FSAC's test explorer in the double: test/discoverTests and test/runTests over a copy of
// fixtures/tested, run by the SDK's real vstest.console (through VSTest's translation layer, as
// FSAC does). The copy is restored and built here, edited to add a failing test and slow ones,
// and rebuilt: FSAC runs the built assemblies and builds nothing itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { DoubleClient, FIXTURES, uri } from './client.mjs';

function copyFixture() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fsac-double-dotnet-tested-'));
  fs.cpSync(path.join(FIXTURES, 'tested'), root, { recursive: true });
  return root;
}
const dotnet = (args, cwd) => execFileSync('dotnet', args, { cwd, stdio: 'pipe', env: { ...process.env, DOTNET_CLI_UI_LANGUAGE: 'en' } });
/** The `content` of an FSAC answer or notification, parsed. */
const content = (x) => JSON.parse(x.content);

/** Every process (pid, ppid, command line) on the machine. */
function processes() {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n').filter((l) => l.trim()).map((l) => {
      const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l);
      return { pid: Number(m[1]), ppid: Number(m[2]), args: m[3] };
    });
}
/** The processes descended from `pid`, and any other whose command line names `dir`. */
function leftovers(pid, dir) {
  const all = processes().filter((p) => p.args.indexOf('ps -eo') < 0);
  const below = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) if (below.has(p.ppid) && !below.has(p.pid)) { below.add(p.pid); grew = true; }
  }
  return all.filter((p) => p.pid !== pid && (below.has(p.pid) || p.args.includes(dir)));
}
async function until(pred, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = pred();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('test/discoverTests and test/runTests drive VSTest as FSAC does', { timeout: 240000 }, async (t) => {
  const root = copyFixture();
  const xunitProject = path.join(root, 'tests/Tally.Xunit/Tally.Xunit.fsproj');
  const testsFile = path.join(root, 'tests/Tally.Xunit/CounterTests.fs');
  dotnet(['restore', 'Tally.sln'], root);
  const c = new DoubleClient(root, { FSAC_DOUBLE_CACHE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'fsac-double-dotnet-cache-')) });
  const load = async (relative) => {
    const loaded = c.waitForNext((n) => n.method === 'fsharp/notifyWorkspace' && content(n.params).Kind === 'workspaceLoad', 180000, 'workspaceLoad');
    await c.request('fsharp/workspaceLoad', { textDocuments: relative.map((r) => ({ uri: uri(path.join(root, r)) })) });
    await loaded;
  };
  const failsWith = async (method, params, message) => {
    const shown = c.waitForNext((n) => n.method === 'window/showMessage', 30000, 'showMessage');
    await assert.rejects(c.request(method, params), (e) => e.code === -32603 && e.message === message);
    assert.deepEqual((await shown).params, { type: 1, message });
  };
  try {
    await c.initialize({ initializationOptions: {} });

    await t.test('no test project: an error, shown to the user too', async () => {
      await load(['src/Tally/Tally.fsproj']);
      await failsWith('test/discoverTests', undefined, "No test projects found. Make sure you've restored your projects");
    });

    await t.test('test projects not built: an error, shown to the user too', async () => {
      await load(['src/Tally/Tally.fsproj', 'tests/Tally.Xunit/Tally.Xunit.fsproj', 'tests/Tally.Expecto/Tally.Expecto.fsproj']);
      await failsWith('test/discoverTests', undefined, "No binaries found for test projects. Make sure you've built your projects");
    });

    dotnet(['build', 'Tally.sln', '--no-restore', '-nologo', '-v:q'], root);

    await t.test('discovery lists the xUnit tests with their project, framework and code location', async () => {
      const since = c.notifications.length;
      const answer = content(await c.request('test/discoverTests'));
      assert.equal(answer.Kind, 'discoverTests');
      const names = answer.Data.map((i) => i.DisplayName).sort();
      assert.deepEqual(names, [
        'Tally.Xunit.CounterTests.a new tally counts nothing',
        'Tally.Xunit.CounterTests.add adds',
        'Tally.Xunit.CounterTests.clampTo keeps the count in bounds(amount: -5, expected: 0)',
        'Tally.Xunit.CounterTests.clampTo keeps the count in bounds(amount: 20, expected: 10)',
        'Tally.Xunit.CounterTests.clampTo keeps the count in bounds(amount: 7, expected: 7)',
      ]);
      // Tally.Expecto references neither Microsoft.NET.Test.Sdk nor a VSTest adapter for Expecto
      // (YoloDev.Expecto.TestSdk is not served here): FSAC does not take it for a test project.
      const add = answer.Data.find((i) => i.DisplayName === 'Tally.Xunit.CounterTests.add adds');
      assert.deepEqual(add, {
        FullName: 'Tally.Xunit.CounterTests.add adds',
        DisplayName: 'Tally.Xunit.CounterTests.add adds',
        ExecutorUri: 'executor://xunit/VsTestRunner3/netcore/',
        ProjectFilePath: xunitProject,
        TargetFramework: 'net10.0',
        CodeFilePath: testsFile,
        CodeLocationRange: { StartLine: 11, EndLine: 11 },
      });
      const theory = answer.Data.filter((i) => i.FullName === 'Tally.Xunit.CounterTests.clampTo keeps the count in bounds');
      assert.equal(theory.length, 3);
      // The same tests came as test/testDiscoveryUpdate notifications while VSTest found them.
      const updates = c.notifications.slice(since).filter((n) => n.method === 'test/testDiscoveryUpdate').map((n) => content(n.params));
      assert.deepEqual(updates.flatMap((u) => u.Tests).map((i) => i.DisplayName).sort(), names);
      assert.ok(updates.some((u) => u.TestLogs.some((l) => l.Level === 'Informational' && /Discover/.test(l.Message))), JSON.stringify(updates));
    });

    await t.test('a run of all passes, with progress as results come', async () => {
      const since = c.notifications.length;
      const answer = content(await c.request('test/runTests', { attachDebugger: false }));
      assert.equal(answer.Kind, 'runTests');
      assert.equal(answer.Data.length, 5);
      for (const r of answer.Data) {
        assert.equal(r.Outcome, 1, `Passed is 1: ${JSON.stringify(r)}`);
        assert.equal(r.ErrorMessage, null);
        assert.match(r.Duration, /^\d\d:\d\d:\d\d(\.\d{7})?$/);
        assert.equal(r.TestItem.ProjectFilePath, xunitProject);
      }
      const progress = c.notifications.slice(since).filter((n) => n.method === 'test/testRunProgressUpdate').map((n) => content(n.params));
      assert.deepEqual(progress.flatMap((p) => p.TestResults).map((r) => r.TestItem.DisplayName).sort(), answer.Data.map((r) => r.TestItem.DisplayName).sort());
      assert.ok(progress.every((p) => Array.isArray(p.TestLogs) && Array.isArray(p.ActiveTests)));
    });

    await t.test('a filter runs only the tests it selects; limitToProjects names projects', async () => {
      const filtered = content(await c.request('test/runTests', { testCaseFilter: 'FullyQualifiedName~clampTo', attachDebugger: false }));
      assert.deepEqual(filtered.Data.map((r) => r.TestItem.DisplayName).sort(), [
        'Tally.Xunit.CounterTests.clampTo keeps the count in bounds(amount: -5, expected: 0)',
        'Tally.Xunit.CounterTests.clampTo keeps the count in bounds(amount: 20, expected: 10)',
        'Tally.Xunit.CounterTests.clampTo keeps the count in bounds(amount: 7, expected: 7)',
      ]);
      const none = content(await c.request('test/runTests', { limitToProjects: [path.join(root, 'tests/Tally.Expecto/Tally.Expecto.fsproj')], attachDebugger: false }));
      assert.deepEqual(none.Data, []);
    });

    await t.test('attachDebugger: the client is asked with the waiting test host\'s id; false runs the tests without a debugger', async () => {
      const asked = [];
      const handler = c.conn.onRequest('test/processWaitingForDebugger', (params) => {
        const pid = Number(params.content);
        const cmdline = fs.existsSync(`/proc/${pid}/cmdline`) ? fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') : '';
        asked.push({ params, cmdline });
        return false;
      });
      try {
        const answer = content(await c.request('test/runTests', { testCaseFilter: 'FullyQualifiedName~add', attachDebugger: true }));
        assert.deepEqual(answer.Data.map((r) => [r.TestItem.DisplayName, r.Outcome]), [['Tally.Xunit.CounterTests.add adds', 1]]);
        assert.equal(asked.length, 1, JSON.stringify(asked));
        assert.match(asked[0].params.content, /^\d+$/);
        assert.match(asked[0].cmdline, /testhost/, 'the id is the test host\'s, alive while it waits');
      } finally {
        handler.dispose();
      }
    });

    // Edit the copy: `add adds` now fails, and five tests that sleep 3 s each are added (one
    // class: xUnit runs them one after another); rebuild.
    const text = fs.readFileSync(testsFile, 'utf8');
    const slow = [1, 2, 3, 4, 5].map((i) => `\n[<Fact>]\nlet \`\`slow ${i}\`\` () = System.Threading.Thread.Sleep 3000\n`).join('');
    fs.writeFileSync(testsFile, text.replace('Assert.Equal(5, tally.Count)', 'Assert.Equal(6, tally.Count)') + slow);

    await t.test('VSTest runs the assembly as built: an edit that is not built yet changes nothing', async () => {
      const answer = content(await c.request('test/runTests', { testCaseFilter: 'FullyQualifiedName~adds', attachDebugger: false }));
      assert.deepEqual(answer.Data.map((r) => [r.TestItem.DisplayName, r.Outcome]), [['Tally.Xunit.CounterTests.add adds', 1]]);
    });

    dotnet(['build', 'tests/Tally.Xunit/Tally.Xunit.fsproj', '--no-restore', '-nologo', '-v:q'], root);

    await t.test('a failing test comes back Failed with its message and a stack trace naming the file and line', async () => {
      const answer = content(await c.request('test/runTests', { testCaseFilter: 'FullyQualifiedName~adds', attachDebugger: false }));
      assert.equal(answer.Data.length, 1);
      const [r] = answer.Data;
      assert.equal(r.TestItem.DisplayName, 'Tally.Xunit.CounterTests.add adds');
      assert.equal(r.Outcome, 0, 'Failed is 0');
      assert.match(r.ErrorMessage, /Assert\.Equal\(\) Failure/);
      assert.match(r.ErrorMessage, /Expected: 6/);
      assert.match(r.ErrorMessage, /Actual:\s+5/);
      assert.ok(r.ErrorStackTrace.includes(`${testsFile}:line 12`), r.ErrorStackTrace);
    });

    await t.test('$/cancelRequest stops a run: the tests not started do not run, no test host or vstest.console is left, answered -32800', async () => {
      // FSAC cancels with VSTest's CancelTestRun: the test that is running finishes (xUnit 2
      // cannot interrupt it), the ones not started are not run, and the answer comes when
      // VSTest's run has ended.
      const since = c.notifications.length;
      const source = new CancellationTokenSource();
      const pending = c.conn.sendRequest('test/runTests', { testCaseFilter: 'FullyQualifiedName~slow', attachDebugger: false }, source.token);
      pending.catch(() => {});
      await until(() => leftovers(c.proc.pid, root).some((p) => /testhost/.test(p.args)), 60000, 'the test host');
      await new Promise((r) => setTimeout(r, 1500));
      source.cancel();
      await assert.rejects(pending, (e) => e.code === -32800);
      const ran = c.notifications.slice(since).filter((n) => n.method === 'test/testRunProgressUpdate')
        .flatMap((n) => content(n.params).TestResults).map((r) => r.TestItem.DisplayName);
      assert.ok(ran.length < 5, `the run stopped before its five 3-second tests all ran: ${JSON.stringify(ran)}`);
      await until(() => leftovers(c.proc.pid, root).length === 0, 15000, `no process left: ${JSON.stringify(leftovers(c.proc.pid, root))}`);
    });
  } finally {
    await c.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
