// Measures the .NET double's start-up on a copy of a fixture: time to the `initialize` answer
// and to `workspaceLoad` finished (AutomaticWorkspaceInit), for a cold cache then a warm one.
//   node tests/fsac-double-dotnet/startup-timing.mjs [fixture] [runs]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const fixture = process.argv[2] ?? 'shipping';
const runs = Number(process.argv[3] ?? 2);
const DLL = path.join(HERE, 'bin/Release/net10.0/FsacDouble.dll');
const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'fsac-double-timing-cache-'));

const frame = (m) => { const b = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...m })); return Buffer.concat([Buffer.from(`Content-Length: ${b.length}\r\n\r\n`), b]); };

function once() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `fsac-double-timing-${fixture}-`));
  // As checked out: without the obj/ and bin/ that earlier runs may have left in the fixture.
  fs.cpSync(path.resolve(HERE, '../../fixtures', fixture), root, { recursive: true, filter: (src) => !/\/(obj|bin)$/.test(src) });
  return new Promise((resolve) => {
    const t0 = performance.now();
    const p = spawn('dotnet', [DLL], { cwd: root, env: { ...process.env, FSAC_DOUBLE_CACHE_DIR: cache }, stdio: ['pipe', 'pipe', 'inherit'] });
    let buf = Buffer.alloc(0);
    const times = {};
    p.stdout.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const h = buf.indexOf('\r\n\r\n');
        if (h < 0) break;
        const len = Number(/Content-Length: (\d+)/.exec(buf.subarray(0, h).toString())[1]);
        if (buf.length < h + 4 + len) break;
        const m = JSON.parse(buf.subarray(h + 4, h + 4 + len).toString());
        buf = buf.subarray(h + 4 + len);
        if (m.id === 1 && !m.method) { times.initialize = performance.now() - t0; p.stdin.write(frame({ method: 'initialized', params: {} })); }
        if (m.method === 'fsharp/notifyWorkspace' && JSON.parse(m.params.content).Kind === 'workspaceLoad') {
          times.workspaceLoaded = performance.now() - t0;
          p.kill();
          resolve(times);
        }
      }
    });
    p.stdin.write(frame({ id: 1, method: 'initialize', params: { processId: null, rootUri: `file://${root}`, capabilities: {}, initializationOptions: { AutomaticWorkspaceInit: true } } }));
  });
}

for (let i = 1; i <= runs; i++) {
  const t = await once();
  console.log(`run ${i}${i === 1 ? ' (empty cache)' : ' (cache)'}: initialize answered ${t.initialize.toFixed(0)} ms, workspace loaded ${t.workspaceLoaded.toFixed(0)} ms`);
}
