#!/usr/bin/env node
// The FSAC double: an LSP server speaking FsAutoComplete's protocol, answering
// with the real F# compiler service (fable-standalone). Usage:
//   node tests/fsac-double/index.mjs [any FSAC flags, ignored]   (cwd = workspace root)
// See README.md for the emulated behaviour and the FSAC_DOUBLE_* fault switches.
import { faults } from './lib/faults.mjs';
import { sdkPinFailure } from './lib/sdkPin.mjs';
import { startLoading } from './lib/compiler.mjs';
import { startServer } from './lib/server.mjs';
import { log } from './lib/log.mjs';

// Like FSAC: the SDK check runs before any LSP I/O and kills the process.
const pinFailure = sdkPinFailure(process.cwd(), faults.installedSdks);
if (pinFailure) {
  process.stderr.write(`${pinFailure}\n`);
  process.exit(1);
}
if (process.argv.length > 2) log(`ignoring FSAC flags: ${process.argv.slice(2).join(' ')}`);
startServer();
// Start loading the compiler now (nothing waits for it until a check), unless told to wait
// for the first check: crash tests start many short-lived doubles.
if (process.env.FSAC_DOUBLE_LAZY_COMPILER !== '1') startLoading();
