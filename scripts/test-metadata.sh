#!/usr/bin/env bash
# Prepares the independent second source for the ECMA-335 metadata reader's tests: the
# pure-Python .NET metadata parser `dnfile` (PyPI, pinned) in a virtual environment under
# target/. tests/it/metadata_against_dnfile.rs drives tests/metadata/dump_with_dnfile.py with it
# and compares its type and method lists with ours on real reference assemblies.
# Idempotent: a second run with the venv in place installs nothing.
#
#   scripts/test-metadata.sh            prepare the venv, then run the metadata tests
#   scripts/test-metadata.sh --prepare  only prepare it and print `FSLENS_DNFILE_PYTHON=<python>`
#
# The Rust test reads the interpreter from FSLENS_DNFILE_PYTHON (default: this venv's python)
# and fails with a clear message, rather than skipping, when dnfile is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

DNFILE_VERSION="0.18.0"
VENV="${FSLENS_DNFILE_VENV:-$PWD/target/dnfile-venv}"
PYTHON="$VENV/bin/python"

# shellcheck source=scripts/lib/python-venv.sh
source scripts/lib/python-venv.sh
prepare_python_venv "$VENV" dnfile dnfile "$DNFILE_VERSION"
export FSLENS_DNFILE_PYTHON="$PYTHON"

if [ "${1:-}" = "--prepare" ]; then
  echo "FSLENS_DNFILE_PYTHON=$FSLENS_DNFILE_PYTHON"
  exit 0
fi

echo "== metadata reader against dnfile $DNFILE_VERSION"
cargo test --locked --test it metadata_against_dnfile::
