#!/usr/bin/env bash
# Prepares the official MCP Python SDK client (PyPI `mcp`, pinned) that tests/it/mcp_bridge.rs
# drives `fslens mcp` with, in a virtual environment under target/. Idempotent: a second run
# with the venv in place installs nothing.
#
#   scripts/test-mcp.sh            prepare the venv, then run the MCP tests
#   scripts/test-mcp.sh --prepare  only prepare it and print `FSLENS_MCP_PYTHON=<python>`
#
# The Rust test reads the interpreter from FSLENS_MCP_PYTHON (default: this venv's python)
# and fails with a clear message, rather than skipping, when the SDK is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

MCP_VERSION="2.3.0"
VENV="${FSLENS_MCP_VENV:-$PWD/target/mcp-venv}"
PYTHON="$VENV/bin/python"

# shellcheck source=scripts/lib/python-venv.sh
source scripts/lib/python-venv.sh
prepare_python_venv "$VENV" mcp mcp "$MCP_VERSION"
export FSLENS_MCP_PYTHON="$PYTHON"

if [ "${1:-}" = "--prepare" ]; then
  echo "FSLENS_MCP_PYTHON=$FSLENS_MCP_PYTHON"
  exit 0
fi

echo "== MCP bridge tests (MCP Python SDK $MCP_VERSION)"
cargo test --locked --test it mcp_bridge::
