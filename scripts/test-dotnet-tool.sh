#!/usr/bin/env bash
# The .NET tool package end to end (scripts/pack-dotnet-tool.sh; .NET SDK 10 or later): packs
# into a temporary folder, installs it with the real `dotnet tool install` from that folder only
# (a nuget.config with <clear/> and the folder: no other source is asked), and runs the installed
# command:
#
#   - `fslens --version`, which must print `fslens VERSION` (Cargo.toml's);
#   - `fslens outline --workspace fixtures/shipping` (the syntax layer, no FSAC), whose output
#     must equal the cargo-built binary's;
#   - an LSP initialize / initialized / shutdown / exit round trip on stdin, whose stdout bytes
#     must equal the cargo-built binary's for the same input. Both run with an empty PATH and no
#     FSLENS_FSAC, so that no FSAC is found: the answers are then deterministic (the initialize
#     result with fslens's capabilities and serverInfo, the `fslens/status` notification
#     "absent", the shutdown result) and carry no pid or temporary path, so the bytes are
#     compared whole, with nothing normalised;
#   - then the same package as a local tool: `dotnet new tool-manifest`, `dotnet tool install
#     --local`, `dotnet tool run fslens --version`.
#
#   scripts/test-dotnet-tool.sh [--binary PATH]
#   KEEP=1 scripts/test-dotnet-tool.sh   (keeps the temporary folder, for a look after a failure)
#
# PATH is the linux-x64 binary packed and compared (default target/debug/fslens, built with
# `cargo build --locked` when missing: the test suite has built it already, and a release build
# would add minutes of CI for the same bytes on the wire). Prints `unzip -l` of the pointer and
# linux-x64 packages. NuGet's global packages folder is a temporary one, so that an fslens of the
# same version installed earlier is never what runs; so is the .NET CLI's home (its tool resolver
# cache).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

binary=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) [ $# -ge 2 ] || { echo "--binary wants a PATH" >&2; exit 2; }; binary=$(realpath "$2"); shift 2 ;;
    *) echo "usage: $0 [--binary PATH]" >&2; exit 2 ;;
  esac
done
if [ -z "$binary" ]; then
  [ -x target/debug/fslens ] || cargo build --locked --bin fslens
  binary=$repo/target/debug/fslens
fi

work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
export NUGET_PACKAGES=$work/nuget-packages
# The SDK's local-tool resolver cache (DOTNET_CLI_HOME/.dotnet/toolResolverCache) keeps, per
# name and version, the path of the executable it restored first, and `dotnet tool install
# --local` does not replace an entry: with the user's home, a run after an earlier one would find
# the previous run's deleted temporary path ("Run dotnet tool restore…"). So the CLI home is
# temporary too.
export DOTNET_CLI_HOME=$work/cli-home
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

fail() { echo "FAILED: $*" >&2; exit 1; }

echo "== Packing (scripts/pack-dotnet-tool.sh --binary linux-x64=$binary)"
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
scripts/pack-dotnet-tool.sh --binary "linux-x64=$binary" "$work/packages"
unzip -l "$work/packages/fslens.$version.nupkg"
unzip -p "$work/packages/fslens.$version.nupkg" tools/any/any/DotnetToolSettings.xml
unzip -l "$work/packages/fslens.linux-x64.$version.nupkg"
unzip -p "$work/packages/fslens.linux-x64.$version.nupkg" tools/any/linux-x64/DotnetToolSettings.xml

cat >"$work/nuget.config" <<EOF
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="fslens-local" value="$work/packages" />
  </packageSources>
</configuration>
EOF

echo "== dotnet tool install --tool-path TMP --configfile (the local folder only) fslens"
dotnet tool install --tool-path "$work/tools" --configfile "$work/nuget.config" fslens
installed=$work/tools/fslens
[ -x "$installed" ] || fail "no runnable $installed after the install"
echo "installed: $(readlink "$installed") ($(stat -L -c %A "$installed"))"

echo "== fslens --version (installed)"
got=$("$installed" --version)
echo "$got"
[ "$got" = "fslens $version" ] || fail "--version printed '$got', not 'fslens $version'"

echo "== fslens outline --workspace fixtures/shipping (installed vs $binary)"
"$installed" outline --workspace fixtures/shipping >"$work/outline.installed"
"$binary" outline --workspace fixtures/shipping >"$work/outline.built"
grep -q '^project src/Shipping.Domain/Shipping.Domain.fsproj' "$work/outline.installed" ||
  { cat "$work/outline.installed"; fail "the installed outline lacks the Shipping.Domain project"; }
cmp "$work/outline.installed" "$work/outline.built" || fail "the outlines differ"
echo "same $(wc -l <"$work/outline.installed") lines"

echo "== LSP initialize, initialized, shutdown, exit (installed vs $binary, stdout bytes compared)"
python3 - "$work/lsp-in" <<'PY'
import json, sys
messages = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"processId": None, "rootUri": None, "capabilities": {}}},
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"},
]
with open(sys.argv[1], "wb") as f:
    for message in messages:
        body = json.dumps(message, separators=(",", ":")).encode()
        f.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
PY
round_trip() { # $1 the command, $2 the output file; exits as the server did
  (cd fixtures/shipping && env -u FSLENS_FSAC PATH=/nonexistent "$1" --workspace . <"$work/lsp-in" >"$2" 2>"$2.stderr")
}
round_trip "$installed" "$work/lsp.installed" || fail "the installed fslens exited $? (stderr: $(tail -n 5 "$work/lsp.installed.stderr"))"
round_trip "$binary" "$work/lsp.built" || fail "$binary exited $?"
grep -q '"serverInfo":{"name":"fslens","version":"'"$version"'"}' "$work/lsp.installed" ||
  { cat "$work/lsp.installed"; fail "no initialize result with serverInfo in the installed fslens's answer"; }
grep -q '"id":2,"jsonrpc":"2.0","result":null' "$work/lsp.installed" || fail "no shutdown result"
cmp "$work/lsp.installed" "$work/lsp.built" || fail "the LSP answers differ"
echo "same $(wc -c <"$work/lsp.installed") bytes: $(grep -o '"method":"[^"]*"\|"id":[0-9]*' "$work/lsp.installed" | tr '\n' ' ')"

echo "== Local tool: dotnet new tool-manifest, dotnet tool install --local, dotnet tool run fslens --version"
mkdir "$work/local"
(
  cd "$work/local"
  dotnet new tool-manifest >/dev/null
  dotnet tool install --local --configfile "$work/nuget.config" fslens
  got=$(dotnet tool run fslens --version)
  echo "$got"
  [ "$got" = "fslens $version" ] || fail "dotnet tool run fslens --version printed '$got'"
)
echo "== .NET tool package: all checks passed"
