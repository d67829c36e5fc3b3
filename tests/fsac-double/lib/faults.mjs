// Fault injection and transcript settings, read once from the environment.
// Names and meanings are documented in README.md; the Rust tests rely on them.
const int = (name) => {
  const v = process.env[name];
  if (v === undefined || v === '') return null;
  const n = Number.parseInt(v, 10);
  return Number.isFinite(n) && n >= 0 ? n : null;
};

export const faults = {
  /** Exit abruptly (code `exitCode`) right after receiving the Nth message. */
  exitAfter: int('FSAC_DOUBLE_EXIT_AFTER'),
  exitCode: int('FSAC_DOUBLE_EXIT_CODE') ?? 3,
  /** Methods (comma-separated) whose requests are swallowed and never answered. */
  hangOn: new Set((process.env.FSAC_DOUBLE_HANG_ON ?? '').split(',').map((s) => s.trim()).filter(Boolean)),
  /** Delay in ms before every response is written. */
  delayMs: int('FSAC_DOUBLE_DELAY_MS') ?? 0,
  /** Write one garbage frame right after receiving the Nth message. */
  garbageAfter: int('FSAC_DOUBLE_GARBAGE_AFTER'),
  /** Pause before searching each file in a references sweep, in ms (makes sweeps slow enough to cancel). */
  sweepDelayMs: int('FSAC_DOUBLE_SWEEP_DELAY_MS') ?? 0,
  /** "1": references answers leave out every site in a signature file (a backend that misses them). */
  referencesSkipSignatures: process.env.FSAC_DOUBLE_REFERENCES_SKIP_SIGNATURES === '1',
  /** Extra time spent in every workspace load, in ms. */
  slowLoadMs: int('FSAC_DOUBLE_SLOW_LOAD_MS') ?? 0,
  /** JSON-lines transcript of received (and sent) messages. */
  transcript: process.env.FSAC_DOUBLE_TRANSCRIPT || null,
  /** "1": publishDiagnostics carries the document version (FSAC after 0.83.0). */
  diagnosticsVersion: process.env.FSAC_DOUBLE_DIAGNOSTICS_VERSION === '1',
  /** SDK versions the fake `dotnet` host has installed (for the global.json check). */
  installedSdks: (process.env.FSAC_DOUBLE_INSTALLED_SDKS ?? '8.0.404,9.0.101').split(',').map((s) => s.trim()).filter(Boolean),
};

/** The garbage frame: a valid header with a body that is not JSON. */
export const GARBAGE_BODY = '{"jsonrpc": "2.0", this is not json';
