#!/usr/bin/env bash
# Packs fslens as a .NET tool (`dotnet tool install -g fslens`, .NET SDK 10 or later): native
# binaries, no .NET code. Writes into OUT_DIR
#
#   fslens.VERSION.nupkg        the pointer package (package type DotnetTool): its
#                               tools/any/any/DotnetToolSettings.xml names, under
#                               <RuntimeIdentifierPackages>, one package per runtime identifier;
#   fslens.RID.VERSION.nupkg    one per RID (package type DotnetToolRidPackage): the binary under
#                               tools/any/RID/ and a DotnetToolSettings.xml whose command has
#                               Runner="executable" and EntryPoint="fslens" (fslens.exe on win-*).
#
# `dotnet tool install` reads the pointer, picks the RID package for the machine and links the
# command straight to the binary: no .NET process in between. VERSION is Cargo.toml's.
#
#   scripts/pack-dotnet-tool.sh [--binary RID=PATH]... OUT_DIR
#
# RID is one of linux-x64, linux-arm64, osx-arm64, osx-x64, win-x64. Without --binary
# linux-x64=PATH the linux-x64 package carries target/release/fslens (built with
# `cargo build --release --locked` when missing); the other RIDs get a package only when their
# binary is given (e.g. built with `cargo build --release --target aarch64-apple-darwin`), never a
# placeholder, and the pointer lists only the packages made. A binary is checked to be an
# executable of that RID's format (ELF, Mach-O, PE) and machine before it is packed.
#
# The executable bit: a .nupkg is a zip, and NuGet's extraction does not keep the modes written
# here (0755); on Linux and macOS the installed file is rwxr--r-- (its owner, who installed it,
# can run it; other users sharing a --tool-path cannot — they run `chmod a+x` on it, or install
# their own). The metadata (licence, readme, description, tags, repository) comes from
# Cargo.toml and README.md; the repository element is written when Cargo.toml's [package] has a
# `repository = "URL"` line. Prints the packages' paths.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: $0 [--binary RID=PATH]... OUT_DIR" >&2; exit 2; }

# The packer (Python's standard library only): `check` validates the binaries, `pack` writes the
# packages.
packer=$(cat <<'PY'
import os, re, sys, zipfile
from xml.sax.saxutils import escape

mode, out_dir = sys.argv[1], sys.argv[2]
binaries = dict(a.split("=", 1) for a in sys.argv[3:])

def package_field(name):
    """A string field of Cargo.toml's [package] table (one line, double quotes), or None."""
    section = None
    with open("Cargo.toml", encoding="utf-8") as f:
        for line in f:
            header = re.match(r"\s*\[([^\]]+)\]", line)
            if header:
                section = header.group(1).strip()
                continue
            field = re.match(r'\s*' + name + r'\s*=\s*"([^"]*)"', line)
            if section == "package" and field:
                return field.group(1)
    return None

version = package_field("version")
if not version:
    sys.exit("Cargo.toml: no version in [package]")
licence = package_field("license") or "MIT"
repository = package_field("repository")
description = ("fslens, a language-server proxy for F#: your editor starts fslens instead of "
               "FsAutoComplete; it forwards LSP untouched and adds workspace-wide commands (find "
               "every site with proof of coverage, check with a verdict, rename with preview, the "
               "tests of a symbol), headless CLI commands and an MCP server for coding agents "
               "(fslens mcp). A native executable: no .NET process starts it.")
tags = "fsharp lsp fsautocomplete mcp"

# What each runtime identifier's binary must be: (format, machine).
EXPECTED = {
    "linux-x64": ("ELF", 0x3E), "linux-arm64": ("ELF", 0xB7),
    "osx-x64": ("Mach-O", 0x01000007), "osx-arm64": ("Mach-O", 0x0100000C),
    "win-x64": ("PE", 0x8664),
}

def binary_kind(path):
    with open(path, "rb") as f:
        head = f.read(4096)
    if head[:4] == b"\x7fELF":
        little = head[5] == 1
        return "ELF", int.from_bytes(head[18:20], "little" if little else "big")
    if head[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe"):
        return "Mach-O", int.from_bytes(head[4:8], "little")
    if head[:2] == b"MZ" and len(head) >= 64:
        pe = int.from_bytes(head[60:64], "little")
        if head[pe:pe + 4] == b"PE\0\0":
            return "PE", int.from_bytes(head[pe + 4:pe + 6], "little")
    return "unknown", None

for rid, path in binaries.items():
    kind = binary_kind(path)
    if kind != EXPECTED[rid]:
        sys.exit(f"--binary {rid}: {path} is not an executable for {rid} "
                 f"(found {kind[0]}, machine {kind[1]!r}; expected {EXPECTED[rid][0]})")
if mode == "check":
    sys.exit(0)

with open("README.md", "rb") as f:
    readme = f.read()

# A fixed timestamp: the same inputs give the same bytes.
STAMP = (2020, 1, 1, 0, 0, 0)

def entry(archive, name, data, mode=0o644):
    info = zipfile.ZipInfo(name, STAMP)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # Unix, so that the mode below is read
    info.external_attr = (0o100000 | mode) << 16
    archive.writestr(info, data)

def nuspec(package_id, package_type):
    repo = (f'    <repository type="git" url="{escape(repository)}" />\n'
            f"    <projectUrl>{escape(repository)}</projectUrl>\n") if repository else ""
    return f"""<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd">
  <metadata>
    <id>{package_id}</id>
    <version>{escape(version)}</version>
    <authors>fslens</authors>
    <license type="expression">{escape(licence)}</license>
    <readme>README.md</readme>
    <description>{escape(description)}</description>
    <tags>{tags}</tags>
{repo}    <packageTypes>
      <packageType name="{package_type}" />
    </packageTypes>
  </metadata>
</package>
""".encode()

def write_package(package_id, package_type, files):
    """files: (path in the package, bytes, mode). Writes the OPC container NuGet reads."""
    overrides = "".join(
        f'  <Override PartName="/{name}" ContentType="application/octet" />\n'
        for name, _, _ in files if "." not in name.rsplit("/", 1)[-1])
    content_types = f"""<?xml version="1.0" encoding="utf-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
  <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml" />
  <Default Extension="nuspec" ContentType="application/octet" />
  <Default Extension="xml" ContentType="application/octet" />
  <Default Extension="md" ContentType="application/octet" />
  <Default Extension="exe" ContentType="application/octet" />
{overrides}</Types>
""".encode()
    rels = f"""<?xml version="1.0" encoding="utf-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
  <Relationship Type="http://schemas.microsoft.com/packaging/2010/07/manifest" Target="/{package_id}.nuspec" Id="R0" />
</Relationships>
""".encode()
    path = os.path.join(out_dir, f"{package_id}.{version}.nupkg")
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w") as archive:
        entry(archive, "_rels/.rels", rels)
        entry(archive, f"{package_id}.nuspec", nuspec(package_id, package_type))
        entry(archive, "README.md", readme)
        for name, data, mode in files:
            entry(archive, name, data, mode)
        entry(archive, "[Content_Types].xml", content_types)
    os.replace(tmp, path)
    print(path)

def settings(command, packages=None):
    if packages is None:  # a RID package: the command is its binary
        return f"""<?xml version="1.0" encoding="utf-8"?>
<DotNetCliTool Version="2">
  <Commands>
    <Command Name="fslens" EntryPoint="{command}" Runner="executable" />
  </Commands>
</DotNetCliTool>
""".encode()
    listed = "".join(f'    <RuntimeIdentifierPackage RuntimeIdentifier="{rid}" Id="fslens.{rid}" />\n'
                     for rid in packages)
    return f"""<?xml version="1.0" encoding="utf-8"?>
<DotNetCliTool Version="2">
  <Commands>
    <Command Name="fslens" />
  </Commands>
  <RuntimeIdentifierPackages>
{listed}  </RuntimeIdentifierPackages>
</DotNetCliTool>
""".encode()

rids = sorted(binaries)
for rid in rids:
    name = "fslens.exe" if rid.startswith("win-") else "fslens"
    with open(binaries[rid], "rb") as f:
        binary = f.read()
    write_package(f"fslens.{rid}", "DotnetToolRidPackage", [
        (f"tools/any/{rid}/DotnetToolSettings.xml", settings(name), 0o644),
        (f"tools/any/{rid}/{name}", binary, 0o755),
    ])
write_package("fslens", "DotnetTool", [
    ("tools/any/any/DotnetToolSettings.xml", settings(None, rids), 0o644),
])
PY
)

declare -A binaries=()
out_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary)
      [ $# -ge 2 ] || usage
      rid=${2%%=*}
      path=${2#*=}
      [ "$rid" != "$2" ] && [ -n "$path" ] || { echo "--binary wants RID=PATH, got '$2'" >&2; exit 2; }
      case "$rid" in
        linux-x64 | linux-arm64 | osx-arm64 | osx-x64 | win-x64) ;;
        *) echo "--binary: unknown runtime identifier '$rid' (linux-x64, linux-arm64, osx-arm64, osx-x64, win-x64)" >&2; exit 2 ;;
      esac
      [ -f "$path" ] || { echo "--binary $rid: no file at $path" >&2; exit 1; }
      binaries[$rid]=$(realpath "$path")
      shift 2 ;;
    -*) usage ;;
    *) [ -z "$out_dir" ] || usage; out_dir=$1; shift ;;
  esac
done
[ -n "$out_dir" ] || usage
binary_args() { for rid in "${!binaries[@]}"; do echo "$rid=${binaries[$rid]}"; done; }
# The binaries given are checked before a release build is started for the missing linux-x64 one.
mapfile -t args < <(binary_args)
[ ${#args[@]} -eq 0 ] || python3 -c "$packer" check "$out_dir" "${args[@]}"
if [ -z "${binaries[linux-x64]:-}" ]; then
  if [ ! -x target/release/fslens ]; then
    echo "== target/release/fslens is missing: cargo build --release --locked" >&2
    cargo build --release --locked >&2
  fi
  binaries[linux-x64]=$(realpath target/release/fslens)
fi
mkdir -p "$out_dir"
mapfile -t args < <(binary_args)
python3 -c "$packer" pack "$out_dir" "${args[@]}"
