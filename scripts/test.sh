#!/usr/bin/env bash
# Runs the whole fslens test suite on a fresh Debian machine with the .NET SDK: installs what the
# tests need (Node and npm packages for the editors' and the double's own tests), builds the FSAC
# double (.NET, tests/fsac-double-dotnet), then runs the Rust and Node tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Rust tests link a few large binaries (the library's and fslens's unit tests, tests/it);
# a link that fails for want of disk reads like a compiler error, so the free space is printed
# first.
echo "== Free disk where the build goes: $(df -Ph . | awk 'NR==2 {print $4}')"
# One build, run once: incremental-compilation state would add about 650 MB and save nothing.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

# Each step's heading says how far into the run it starts, so a slow run shows where it went.
step() { echo "== $* [at ${SECONDS} s]"; }

# Machines that reach no crates registry and no Python package index (the `dotnet` machines this
# project is developed and tested on) carry an offline kit beside the clone: ../shared/offline,
# a cargo local registry and the test wheels. When it is there, cargo and pip read from it (the
# kit's script writes a source-replacement block into $CARGO_HOME/config.toml and prints the pip
# variables). A clone without it uses the registries as usual.
offline_kit=../shared/offline/use-offline-kit.sh
if [ -z "${FSLENS_NO_OFFLINE_KIT:-}" ] && [ -f "$offline_kit" ]; then
  eval "$(bash "$offline_kit")"
  bash "$offline_kit" --check .
fi

need_apt=()
command -v node >/dev/null 2>&1 || need_apt+=(nodejs npm)
command -v cc >/dev/null 2>&1 || need_apt+=(build-essential)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need_apt[@]}"
fi

# Formatting and lints first: either failing fails the run before the slow steps.
step "Formatting (cargo fmt --check)"
cargo fmt --check

step "Lints (cargo clippy --all-targets, warnings are errors)"
cargo clippy --locked --all-targets -- -D warnings

step "Function length (no function in src/ over 120 lines; scripts/count-long-functions.py)"
python3 scripts/count-long-functions.py

# The FSAC double (F#: FSAC's protocol on FCS from NuGet, projects loaded by an MSBuild
# design-time build), which every test that needs an FSAC starts.
step "Building the FSAC double (tests/fsac-double-dotnet), compiled ahead of time"
# Published ReadyToRun into the folder `dotnet build -c Release` writes (where every test looks):
# the same code, but the compiler service is not compiled again by the JIT in each of the
# hundreds of double processes the tests start. A plain `dotnet build` works too, slower.
rid=$(dotnet --info | awk '$1 == "RID:" {print $2; exit}')
dotnet publish -c Release -r "$rid" --self-contained false -p:PublishReadyToRun=true -nologo -v:q \
  -o tests/fsac-double-dotnet/bin/Release/net10.0 tests/fsac-double-dotnet/FsacDouble.fsproj
npm ci --prefix tests/fsac-double-dotnet --no-audit --no-fund --loglevel=error

step "Editors: Neovim 0.7 and 0.11, Emacs, VS Code extension (unit tests, .vsix, end to end in code-server)"
./scripts/test-editors.sh --with-nvim-0.11

step "MCP: the official Python SDK client (PyPI mcp) in a virtual environment"
eval "$(./scripts/test-mcp.sh --prepare | grep '^FSLENS_MCP_PYTHON=' | sed 's/^/export /')"


step "Rust tests"
# Built first on their own: a failed link prints the whole linker command line, tens of
# kilobytes on one line, which buries the linker's own message. Long lines are cut here.
mkdir -p target
if ! cargo test --locked --lib --bins --tests --no-run >target/build-tests.log 2>&1; then
  echo "== Building the Rust tests failed; the end of its log, lines cut at 400 characters:"
  cut -c1-400 target/build-tests.log | tail -n 60
  echo "== Free disk now: $(df -Ph . | awk 'NR==2 {print $4}')"
  exit 1
fi
# tests/it/editors_recordings.rs ran in the editors' step above (it records the answers the
# extension's tests read), so it is not run twice.
cargo test --locked --lib --bins --tests -- --skip editors_recordings::

step ".NET tool: pack, dotnet tool install from a local folder, run the installed fslens"
# The debug binary the Rust tests built (a release build would add minutes for the same bytes).
./scripts/test-dotnet-tool.sh --binary target/debug/fslens

# The real-FSAC test is ignored in the run above; it runs here when FSLENS_FSAC names an
# FsAutoComplete command line, and its failure fails the run.
if [ -n "${FSLENS_FSAC:-}" ]; then
  step "Real FSAC layer (FSLENS_FSAC=$FSLENS_FSAC)"
  cargo test --locked --test it real_fsac:: -- --ignored
else
  step "Real FSAC layer: not run (FSLENS_FSAC is not set; docs/testing.md)"
fi

step "FSAC double tests (its wire protocol, faults and real MSBuild loading)"
(cd tests/fsac-double-dotnet && npm test)

step "Fuzzing (short bounded run; the long run is in docs/fuzzing.md)"
FUZZ_REQUIRED=1 ./scripts/fuzz.sh 20
step "Done"
