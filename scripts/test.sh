#!/usr/bin/env bash
# Runs the whole fslens test suite on a fresh Debian machine: installs what the tests need
# (Node for the FSAC double and its npm packages), then runs the Rust and Node tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Rust tests link a few large binaries (the library's and fslens's unit tests, tests/it);
# a link that fails for want of disk reads like a compiler error, so the free space is printed
# first.
echo "== Free disk where the build goes: $(df -Ph . | awk 'NR==2 {print $4}')"
# One build, run once: incremental-compilation state would add about 650 MB and save nothing.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

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
echo "== Formatting (cargo fmt --check)"
cargo fmt --check

echo "== Lints (cargo clippy --all-targets, warnings are errors)"
cargo clippy --locked --all-targets -- -D warnings

if [ -f tests/fsac-double/package-lock.json ]; then
  npm ci --prefix tests/fsac-double --no-audit --no-fund --loglevel=error
fi

# The .NET FSAC double (FCS from NuGet, projects loaded by MSBuild): built when a .NET SDK is
# here; the Rust tests use it with FSLENS_TEST_DOUBLE=dotnet.
if [ -f tests/fsac-double-dotnet/FsacDouble.fsproj ] && command -v dotnet >/dev/null 2>&1; then
  echo "== Building the .NET FSAC double (tests/fsac-double-dotnet)"
  dotnet build -c Release -nologo -v:q tests/fsac-double-dotnet/FsacDouble.fsproj
fi

echo "== Editors: Neovim 0.7 and 0.11, Emacs, VS Code extension (unit tests, .vsix, end to end in code-server)"
./scripts/test-editors.sh --with-nvim-0.11

echo "== MCP: the official Python SDK client (PyPI mcp) in a virtual environment"
eval "$(./scripts/test-mcp.sh --prepare | grep '^FSLENS_MCP_PYTHON=' | sed 's/^/export /')"


echo "== Rust tests"
# Built first on their own: a failed link prints the whole linker command line, tens of
# kilobytes on one line, which buries the linker's own message. Long lines are cut here.
mkdir -p target
if ! cargo test --locked --lib --bins --tests --no-run >target/build-tests.log 2>&1; then
  echo "== Building the Rust tests failed; the end of its log, lines cut at 400 characters:"
  cut -c1-400 target/build-tests.log | tail -n 60
  echo "== Free disk now: $(df -Ph . | awk 'NR==2 {print $4}')"
  exit 1
fi
# check_referee builds its trees with the real `dotnet build` and always runs behind the .NET
# double: it runs once, in the .NET double's run below.
cargo test --locked --lib --bins --tests -- --skip check_referee::

# The same layers again in front of the .NET FSAC double (FCS from NuGet, projects loaded by
# an MSBuild design-time build): find, check, rename, what-if, the differential oracle and the
# check referee (fslens check beside `dotnet build` on the same trees).
# check_with_double::unusable_setups pins the JavaScript double's fake list of installed SDKs;
# the .NET double lists the machine's real ones.
echo "== Rust tests against the .NET FSAC double (FSLENS_TEST_DOUBLE=dotnet)"
FSLENS_TEST_DOUBLE=dotnet cargo test --locked --test it -- find_with_double:: proxy_with_double:: \
  check_with_double:: rename:: check_what_if:: find_names:: union_patterns:: find_oracle:: check_referee:: \
  --skip check_with_double::unusable_setups

echo "== Real FSAC layer (runs only when FSLENS_FSAC names an FsAutoComplete)"
cargo test --locked --test it real_fsac:: -- --nocapture 2>&1 | grep -E "skipped|test result|panicked" || true

if [ -f tests/fsac-double/package.json ]; then
  echo "== FSAC double tests"
  (cd tests/fsac-double && npm test)
fi

if [ -f tests/fsac-double-dotnet/bin/Release/net10.0/FsacDouble.dll ]; then
  echo "== .NET FSAC double tests (real MSBuild loading)"
  (cd tests/fsac-double-dotnet && npm test)
fi

echo "== Fuzzing (short bounded run; the long run is in docs/fuzzing.md)"
./scripts/fuzz.sh 20
