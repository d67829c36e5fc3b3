#!/usr/bin/env bash
# Packages the VS Code extension: the universal .vsix without a binary
# (fslens-VERSION.vsix, for users who put fslens on PATH or set fslens.path), and for each binary
# given a platform .vsix (`vsce package --target TARGET`) that carries it as bin/fslens
# (bin/fslens.exe for win32-* targets), which the extension starts when fslens.path is empty:
#
#   scripts/package-vscode.sh [--binary PATH [--target TARGET]] [--binary TARGET=PATH]...
#
# TARGET is a VS Code platform (linux-x64, linux-arm64, alpine-x64, darwin-x64, darwin-arm64,
# win32-x64, win32-arm64); `--binary PATH` alone is for this machine's (or --target's). A binary
# must be built for its target, e.g. `cargo build --release --target aarch64-apple-darwin` then
# `--binary darwin-arm64=target/aarch64-apple-darwin/release/fslens`; a target gets a package
# only when its binary is given. A binary for this machine is stripped of debug information in
# the copy (the build stays as it is). The JavaScript is one bundled file, dist/extension.js
# (esbuild; vsce runs the manifest's vscode:prepublish: tsc, a type check, then `npm run bundle`);
# .vscodeignore leaves out the rest. Expects `npm ci` done in vscode-extension
# (scripts/test-editors.sh does it). Prints the packages' paths.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A binaries=()
single=""
target=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary)
      [ $# -ge 2 ] || { echo "--binary wants PATH or TARGET=PATH" >&2; exit 2; }
      case "$2" in
        *=*) binaries[${2%%=*}]=$(realpath "${2#*=}") ;;
        *) single=$(realpath "$2") ;;
      esac
      shift 2 ;;
    --target) target="$2"; shift 2 ;;
    *) echo "usage: $0 [--binary PATH [--target TARGET]] [--binary TARGET=PATH]..." >&2; exit 2 ;;
  esac
done
host=$(node -p "process.platform + '-' + process.arch")
[ -z "$single" ] || binaries[${target:-$host}]=$single

cd vscode-extension
version=$(node -p "require('./package.json').version")
# bin/ must hold nothing while the universal package is made, and is removed afterwards.
rm -rf bin
trap 'rm -rf bin' EXIT
npx --no-install vsce package --allow-missing-repository --out "fslens-$version.vsix" >/dev/null
echo "vscode-extension/fslens-$version.vsix"
for target in "${!binaries[@]}"; do
  binary=${binaries[$target]}
  [ -x "$binary" ] || { echo "$binary is not an executable" >&2; exit 1; }
  name=fslens
  case "$target" in win32-*) name=fslens.exe ;; esac
  rm -rf bin
  mkdir bin
  cp "$binary" "bin/$name"
  if [ "$target" = "$host" ] && command -v strip >/dev/null 2>&1; then
    strip "bin/$name" 2>/dev/null || true
  fi
  chmod 755 "bin/$name"
  npx --no-install vsce package --allow-missing-repository --target "$target" --out "fslens-$target-$version.vsix" >/dev/null
  echo "vscode-extension/fslens-$target-$version.vsix"
done
