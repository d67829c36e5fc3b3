// Fault injection and transcript settings, read once at start from the environment and
// from FSAC_DOUBLE_FAULTS_FILE (a JSON object of the same names, which wins), so a test can
// change the switches of the next double its fslens starts.
// Names and meanings are documented in README.md; the Rust tests rely on them.
import fs from 'node:fs';

function fromFile() {
  const file = process.env.FSAC_DOUBLE_FAULTS_FILE;
  if (!file || !fs.existsSync(file)) return {};
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
    return parsed && typeof parsed === 'object' ? Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)])) : {};
  } catch {
    return {};
  }
}
const settings = { ...process.env, ...fromFile() };

const int = (name) => {
  const v = settings[name];
  if (v === undefined || v === '') return null;
  const n = Number.parseInt(v, 10);
  return Number.isFinite(n) && n >= 0 ? n : null;
};

export const faults = {
  /** Exit abruptly (code `exitCode`) right after receiving the Nth message. */
  exitAfter: int('FSAC_DOUBLE_EXIT_AFTER'),
  exitCode: int('FSAC_DOUBLE_EXIT_CODE') ?? 3,
  /** Methods (comma-separated) whose requests are swallowed and never answered. */
  hangOn: new Set((settings.FSAC_DOUBLE_HANG_ON ?? '').split(',').map((s) => s.trim()).filter(Boolean)),
  /** Delay in ms before every response is written. */
  delayMs: int('FSAC_DOUBLE_DELAY_MS') ?? 0,
  /** Write one garbage frame right after receiving the Nth message. */
  garbageAfter: int('FSAC_DOUBLE_GARBAGE_AFTER'),
  /** Pause before searching each file in a references sweep, in ms (makes sweeps slow enough to cancel). */
  sweepDelayMs: int('FSAC_DOUBLE_SWEEP_DELAY_MS') ?? 0,
  /** "1": references answers leave out every site in a signature file (a backend that misses them). */
  referencesSkipSignatures: settings.FSAC_DOUBLE_REFERENCES_SKIP_SIGNATURES === '1',
  /** "1": references answers leave out their last site that is not a declaration (a backend that misses one use). */
  referencesDropLastUse: settings.FSAC_DOUBLE_REFERENCES_DROP_LAST_USE === '1',
  /** Checks of a document open at this version or above wait `slowCheckMs` first (with FSAC_DOUBLE_SLOW_CHECK_MS). */
  slowCheckFromVersion: int('FSAC_DOUBLE_SLOW_CHECK_FROM_VERSION'),
  slowCheckMs: int('FSAC_DOUBLE_SLOW_CHECK_MS') ?? 0,
  /** File names (comma-separated): checks of these files report nothing (no publish, no documentAnalyzed), as a check that never ends. */
  unanalysedFiles: new Set((settings.FSAC_DOUBLE_UNANALYSED_FILES ?? '').split(',').map((s) => s.trim()).filter(Boolean)),
  /** Extra time spent in every workspace load, in ms. */
  slowLoadMs: int('FSAC_DOUBLE_SLOW_LOAD_MS') ?? 0,
  /** Time spent before answering `initialize`, in ms. */
  slowInitializeMs: int('FSAC_DOUBLE_SLOW_INITIALIZE_MS') ?? 0,
  /** Resident memory grown (allocated and touched, never freed) per request received, in MB. */
  growMbPerRequest: int('FSAC_DOUBLE_GROW_MB_PER_REQUEST') ?? 0,
  /** JSON-lines transcript of received (and sent) messages. */
  transcript: settings.FSAC_DOUBLE_TRANSCRIPT || null,
  /** "1": publishDiagnostics carries the document version (FSAC after 0.83.0). */
  diagnosticsVersion: settings.FSAC_DOUBLE_DIAGNOSTICS_VERSION === '1',
  /** SDK versions the fake `dotnet` host has installed (for the global.json check). */
  installedSdks: (settings.FSAC_DOUBLE_INSTALLED_SDKS ?? '8.0.404,9.0.101').split(',').map((s) => s.trim()).filter(Boolean),
};

/** The garbage frame: a valid header with a body that is not JSON. */
export const GARBAGE_BODY = '{"jsonrpc": "2.0", this is not json';

/** Memory held on purpose by FSAC_DOUBLE_GROW_MB_PER_REQUEST (a leak, as FSAC's grows). */
const grown = [];
export function growForRequest() {
  if (!faults.growMbPerRequest) return;
  // Filled buffers: their pages are touched, so they count in the resident set.
  grown.push(Buffer.alloc(faults.growMbPerRequest * 1024 * 1024, 1));
}
