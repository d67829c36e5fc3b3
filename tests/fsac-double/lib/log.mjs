// Logging for the double: stderr only (stdout carries the LSP protocol).
export function log(...parts) {
  process.stderr.write(`[fsac-double] ${parts.join(' ')}\n`);
}
