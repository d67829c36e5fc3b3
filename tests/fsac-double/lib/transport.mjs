// Message transport over stdio with the fault hooks: a reader that records the
// transcript, counts messages (exit-after, garbage-after) and swallows hung
// methods; a writer that frames messages itself so responses can be delayed
// and a garbage frame can be slipped in between two real ones.
import fs from 'node:fs';
import { AbstractMessageReader, AbstractMessageWriter } from 'vscode-jsonrpc';
import { StreamMessageReader } from 'vscode-jsonrpc/node';
import { faults, GARBAGE_BODY, growForRequest } from './faults.mjs';
import { log } from './log.mjs';

let seq = 0;
export function record(dir, message) {
  if (!faults.transcript) return;
  fs.appendFileSync(faults.transcript, `${JSON.stringify({ seq: ++seq, dir, time: Date.now(), message })}\n`);
}

function writeFrame(body) {
  const bytes = Buffer.from(body, 'utf8');
  process.stdout.write(`Content-Length: ${bytes.length}\r\n\r\n`);
  process.stdout.write(bytes);
}

export class FaultyReader extends AbstractMessageReader {
  constructor(input) {
    super();
    this.inner = new StreamMessageReader(input);
    this.received = 0;
    this.inner.onError((e) => this.fireError(e));
    this.inner.onClose(() => this.fireClose());
    this.inner.onPartialMessage((p) => this.firePartialMessage(p));
  }

  listen(callback) {
    return this.inner.listen((message) => {
      record('in', message);
      this.received++;
      if (faults.exitAfter !== null && this.received >= faults.exitAfter) {
        log(`FSAC_DOUBLE_EXIT_AFTER=${faults.exitAfter}: exiting with code ${faults.exitCode}`);
        process.exit(faults.exitCode);
      }
      if (faults.garbageAfter !== null && this.received === faults.garbageAfter) {
        log(`FSAC_DOUBLE_GARBAGE_AFTER=${faults.garbageAfter}: writing a garbage frame`);
        record('out', { garbage: GARBAGE_BODY });
        writeFrame(GARBAGE_BODY);
      }
      if ('id' in message && 'method' in message) growForRequest();
      if ('id' in message && 'method' in message && faults.hangOn.has(message.method)) {
        log(`FSAC_DOUBLE_HANG_ON: never answering ${message.method} #${message.id}`);
        return;
      }
      if (message.method === 'initialize' && message.params) {
        // FSAC does not watch the client's process id; vscode-languageserver would.
        message.params = { ...message.params, processId: null };
      }
      callback(message);
    });
  }

  dispose() { super.dispose(); this.inner.dispose(); }
}

export class FramedWriter extends AbstractMessageWriter {
  constructor() {
    super();
    this.queue = Promise.resolve();
  }

  write(message) {
    if (message.method === 'window/logMessage') {
      // FSAC never sends window/logMessage; vscode-languageserver's own error reports go to stderr.
      log(`(library) ${message.params?.message}`);
      return Promise.resolve();
    }
    const isResponse = 'id' in message && !('method' in message);
    const delay = isResponse ? faults.delayMs : 0;
    // Keep output order: each write waits for the previous one (and its delay).
    this.queue = this.queue.then(async () => {
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      record('out', message);
      writeFrame(JSON.stringify(message));
    });
    return this.queue;
  }

  end() {}
}
