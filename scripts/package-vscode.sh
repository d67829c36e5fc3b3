#!/usr/bin/env bash
# Packages the VS Code extension: the universal .vsix without a binary
# (fslens-VERSION.vsix, for users who put fslens on PATH or set fslens.path), and with --binary
# a platform .vsix that carries that fslens binary as bin/fslens (bin/fslens.exe for win32-*
# targets), which the extension starts when fslens.path is empty:
#
#   scripts/package-vscode.sh [--binary PATH [--target TARGET]]
#
# TARGET is a VS Code platform (linux-x64, linux-arm64, alpine-x64, darwin-x64, darwin-arm64,
# win32-x64, win32-arm64); default this machine's. The binary must be built for it, e.g.
# `cargo build --release --target aarch64-apple-darwin` then
# `--binary target/aarch64-apple-darwin/release/fslens --target darwin-arm64`. A binary for this
# machine is stripped of debug information in the copy (the build stays as it is). Expects
# `npm ci` and `tsc` done in vscode-extension (scripts/test-editors.sh does both). Prints the
# packages' paths.
set -euo pipefail
cd "$(dirname "$0")/.."

binary=""
target=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$(realpath "$2"); shift 2 ;;
    --target) target="$2"; shift 2 ;;
    *) echo "usage: $0 [--binary PATH [--target TARGET]]" >&2; exit 2 ;;
  esac
done
host=$(node -p "process.platform + '-' + process.arch")
target=${target:-$host}

cd vscode-extension
version=$(node -p "require('./package.json').version")
# bin/ must hold nothing while the universal package is made, and is removed afterwards.
rm -rf bin
trap 'rm -rf bin' EXIT
npx --no-install vsce package --allow-missing-repository --out "fslens-$version.vsix" >/dev/null
echo "vscode-extension/fslens-$version.vsix"
if [ -n "$binary" ]; then
  [ -x "$binary" ] || { echo "$binary is not an executable" >&2; exit 1; }
  name=fslens
  case "$target" in win32-*) name=fslens.exe ;; esac
  mkdir bin
  cp "$binary" "bin/$name"
  if [ "$target" = "$host" ] && command -v strip >/dev/null 2>&1; then
    strip "bin/$name" 2>/dev/null || true
  fi
  chmod 755 "bin/$name"
  npx --no-install vsce package --allow-missing-repository --target "$target" --out "fslens-$target-$version.vsix" >/dev/null
  echo "vscode-extension/fslens-$target-$version.vsix"
fi
