#!/usr/bin/env bash
# Runs the whole fslens test suite on a fresh Debian machine: installs what the tests need
# (Node for the FSAC double and its npm packages), then runs the Rust and Node tests.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v node >/dev/null 2>&1 || need_apt+=(nodejs npm)
command -v cc >/dev/null 2>&1 || need_apt+=(build-essential)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi

if [ -f tests/fsac-double/package-lock.json ]; then
  npm ci --prefix tests/fsac-double --no-audit --no-fund --loglevel=error
fi

echo "== Editors: Neovim, VS Code extension (tsc, unit tests, vsce package)"
./scripts/test-editors.sh

echo "== MCP: the official Python SDK client (PyPI mcp) in a virtual environment"
eval "$(./scripts/test-mcp.sh --prepare | grep '^FSLENS_MCP_PYTHON=' | sed 's/^/export /')"

echo "== Metadata reader's second source: dnfile (PyPI) in a virtual environment"
eval "$(./scripts/test-metadata.sh --prepare | grep '^FSLENS_DNFILE_PYTHON=' | sed 's/^/export /')"

echo "== Rust tests"
cargo test --locked --lib --bins --tests

echo "== Real FSAC layer (runs only when FSLENS_FSAC names an FsAutoComplete)"
cargo test --locked --test real_fsac -- --nocapture 2>&1 | grep -E "skipped|test result|panicked" || true

if [ -f tests/fsac-double/package.json ]; then
  echo "== FSAC double tests"
  (cd tests/fsac-double && npm test)
fi

echo "== Fuzzing (short bounded run; the long run is in docs/fuzzing.md)"
./scripts/fuzz.sh 20
