// A minimal LSP backend for process-level tests and benchmarks of the proxy: it answers
// `initialize`, echoes every other request's params back as its result, records nothing,
// and exits on `exit` (code 0 after `shutdown`, else 1) or end of input (code 2), like FSAC.
// It has no dependencies so that it starts in milliseconds.
import process from 'node:process';

let buffer = Buffer.alloc(0);
let shutdown = false;

function send(message) {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function handle(message) {
  if (message.method === 'initialize') {
    send({ jsonrpc: '2.0', id: message.id, result: { capabilities: { hoverProvider: true }, serverInfo: { name: 'echo-backend' } } });
  } else if (message.method === 'shutdown') {
    shutdown = true;
    send({ jsonrpc: '2.0', id: message.id, result: null });
  } else if (message.method === 'exit') {
    process.exit(shutdown ? 0 : 1);
  } else if (message.method === 'echo/notifyBack') {
    send({ jsonrpc: '2.0', method: 'echo/notified', params: message.params });
  } else if (message.id !== undefined && message.method !== undefined) {
    send({ jsonrpc: '2.0', id: message.id, result: { method: message.method, params: message.params ?? null } });
  }
}

process.stdin.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const headerEnd = buffer.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const header = buffer.subarray(0, headerEnd).toString('ascii');
    const match = /content-length:\s*(\d+)/i.exec(header);
    if (!match) { buffer = buffer.subarray(headerEnd + 4); continue; }
    const length = Number(match[1]);
    if (buffer.length < headerEnd + 4 + length) return;
    const body = buffer.subarray(headerEnd + 4, headerEnd + 4 + length);
    buffer = buffer.subarray(headerEnd + 4 + length);
    handle(JSON.parse(body.toString('utf8')));
  }
});
process.stdin.on('end', () => process.exit(2));
