#!/usr/bin/env bash
# The find oracle (tests/oracle/FindOracle, README.md there) on eight published F# libraries:
# every declared symbol on the two smallest, a seeded sample on the others, one table.
#
#   scripts/oracle-libraries.sh [--sample N] [--seed N] [--only NAME[,NAME…]] [--out DIR] [--check]
#
# With --check, the check oracle (scripts/check-oracle.py: `dotnet build` beside `fslens check`
# with and without `--confirm build`, on the library and on a copy with three planted errors)
# runs instead of the find oracle, over a solution `oracle.sln` holding every project left.
#
# Each library is copied (never into this repository) to a temporary folder and prepared as a
# user without this machine's missing pieces would run it:
# - its `global.json` is taken out (a pin to SDK 8 or 9 stops every `dotnet` command on SDK 10);
# - analyzer packages (Ionide.Analyzers, G-Research.FSharp.Analyzers, FSharp.Analyzers.Build)
#   are taken out of its project files, and so are packages the compiled code does not need:
#   Expecto's `dotnet test` adapter (YoloDev.Expecto.TestSdk, with `GenerateProgramFile`
#   false as it sets) and test runners only Fable code opens (Fable.Mocha, Fable.Pyxpecto);
# - `Directory.Build.rsp` passes `-p:WarningsNotAsErrors=NU1603` to every MSBuild run (a
#   package registry without the exact FSharp.Core a library asks for serves the next one and
#   warns NU1603, which `TreatWarningsAsErrors` would make an error), and so does a
#   `Directory.Build.targets` (`dotnet build`'s own restore does not read the response file);
# - a `Directory.Solution.targets` running `dotnet tool restore` is taken out (no tool feed);
# - projects that are not the library and its tests (benchmarks, samples, build scripts, Fable
#   test copies) are taken out, and so is any project that does not restore, and any project
#   referencing one taken out; all are listed;
# - each project another references is built (`dotnet build`, every target framework), as by a
#   user who built once: its users' reference assemblies then exist on disk.
#
# Sources: `ORACLE_SOURCES=DIR` holding `owner+name/repo` (a bare git directory) or
# `owner+name` (a checkout) for each library; without it each is cloned from GitHub.
# fslens: `ORACLE_FSLENS` (default target/debug/fslens); its FSAC: `ORACLE_FSAC` (default the
# .NET FSAC double, tests/fsac-double-dotnet; set it empty for the FSAC on PATH).
# The oracle runs under `nice`; it is CPU heavy (a compiler check of every project, then one
# find per symbol).
set -euo pipefail

repository="$(cd "$(dirname "$0")/.." && pwd)"
sample=300
seed=45
only=""
out=""
check=""
while [ $# -gt 0 ]; do
    case "$1" in
    --sample) sample="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --check) check=1; shift ;;
    *) echo "usage: $0 [--sample N] [--seed N] [--only NAME[,NAME…]] [--out DIR] [--check]" >&2; exit 2 ;;
    esac
done

# owner/name and how many symbols: `all` for the two smallest.
libraries=(
    "fsprojects/FSharp.UMX all"
    "giraffe-fsharp/Giraffe.ViewEngine all"
    "fsprojects/FSharp.Control.AsyncSeq sample"
    "fsprojects/Argu sample"
    "fsprojects/FSharp.Control.TaskSeq sample"
    "demystifyfp/FsToolkit.ErrorHandling sample"
    "fsprojects/FSharpx.Collections sample"
    "hedgehogqa/fsharp-hedgehog sample"
)

fslens="${ORACLE_FSLENS:-$repository/target/debug/fslens}"
double="$repository/tests/fsac-double-dotnet/bin/Release/net10.0/FsacDouble.dll"
fsac="${ORACLE_FSAC-dotnet $double}"
[ -x "$fslens" ] || { echo "no fslens at $fslens (cargo build, or set ORACLE_FSLENS)" >&2; exit 2; }

work="$(mktemp -d "${TMPDIR:-/tmp}/fslens-oracle-libraries.XXXXXX")"
# The oracle is built into the run's own folder, its intermediate files too (--artifacts-path):
# a test run or another oracle run building it meanwhile (the project's obj/) neither
# overwrites what this run is executing nor half-writes what it links.
oracle_out="$work/FindOracle"
nice dotnet build -c Release --nologo -v quiet --artifacts-path "$work/oracle-build" -o "$oracle_out" \
    "$repository/tests/oracle/FindOracle" >/dev/null
out="${out:-$work/reports}"
mkdir -p "$out"
echo "oracle-libraries: copies in $work, reports in $out" >&2

# A copy of owner/name's newest commit in $2.
copy_library() {
    local slug="$1" into="$2" key="${1/\//+}"
    mkdir -p "$into"
    if [ -n "${ORACLE_SOURCES:-}" ] && [ -d "$ORACLE_SOURCES/$key/repo" ]; then
        git --git-dir="$ORACLE_SOURCES/$key/repo" archive HEAD | tar -x -C "$into"
    elif [ -n "${ORACLE_SOURCES:-}" ] && [ -d "$ORACLE_SOURCES/$key" ]; then
        cp -r "$ORACLE_SOURCES/$key/." "$into"
        rm -rf "$into/.git"
    else
        git clone --quiet --depth 1 "https://github.com/$slug" "$into"
        rm -rf "$into/.git"
    fi
}

# Takes a project out of the copy: its folder, or the project file alone when its folder is
# the library's root.
remove_project() {
    local root="$1" project="$2"
    if [ "$(dirname "$project")" = "$root" ]; then rm -f "$project"; else rm -rf "$(dirname "$project")"; fi
}

# Takes out what a user without this machine's missing pieces would not have; prints what.
prepare_library() {
    local root="$1"
    if [ -f "$root/global.json" ]; then
        echo "global.json taken out: $(tr -d ' \n' <"$root/global.json")"
        rm -f "$root/global.json"
    fi
    if [ -f "$root/paket.dependencies" ]; then
        echo "paket files taken out (packages come from PackageReference only)"
        # A project that needs a package besides FSharp.Core (which the SDK references by
        # itself) cannot compile without paket: it is taken out, named.
        while IFS= read -r references; do
            local folder project
            folder="$(dirname "$references")"
            project="$(find "$folder" -maxdepth 1 -name '*.fsproj' | head -1)"
            if [ -n "$project" ] && grep -Ev '^\s*(#|group |$)|^\s*FSharp\.Core\s*$' "$references" | grep -q .; then
                echo "left out (its packages come from paket): ${project#"$root"/}"
                remove_project "$root" "$project"
            fi
        done < <(find "$root" -name 'paket.references' | sort)
        find "$root" \( -name 'paket.dependencies' -o -name 'paket.references' -o -name 'paket.lock' -o -name 'paket.template' \) -delete
        rm -rf "$root/.paket"
        find "$root" \( -name '*.fsproj' -o -name '*.props' -o -name '*.targets' \) -exec sed -i '/Paket\.Restore\.targets/d' {} +
    fi
    local analyzers='(Ionide\.Analyzers|G-Research\.FSharp\.Analyzers|FSharp\.Analyzers\.Build)'
    while IFS= read -r -d '' file; do
        if grep -Eq "Include=\"$analyzers\"" "$file"; then
            echo "analyzer packages taken out of ${file#"$root"/}"
            sed -Ei "/<(PackageReference|PackageVersion) (Include|Update)=\"$analyzers\"[^>]*\/>/d" "$file"
        fi
    done < <(find "$root" \( -name '*.fsproj' -o -name '*.props' -o -name '*.targets' \) -print0)
    # Packages the compiled code does not need, which this machine's package copy may lack:
    # Expecto's `dotnet test` adapter (the tests compile without it; it only lets `dotnet test`
    # find them, and the program file it keeps the test SDK from generating is kept out below)
    # and the test runners only `#if FABLE_COMPILER…` code opens (Fable.Mocha, Fable.Pyxpecto).
    local unneeded='(YoloDev\.Expecto\.TestSdk|Fable\.Mocha|Fable\.Pyxpecto)' program_file=""
    while IFS= read -r -d '' file; do
        if grep -Eq "Include=\"$unneeded\"" "$file"; then
            echo "packages the compiled code does not need taken out of ${file#"$root"/}: $(grep -Eo "Include=\"$unneeded\"" "$file" | cut -d'"' -f2 | sort -u | tr '\n' ' ')"
            if grep -Eq 'Include="YoloDev\.Expecto\.TestSdk"' "$file"; then
                program_file='<GenerateProgramFile>false</GenerateProgramFile>'
            fi
            sed -Ei "/<(PackageReference|PackageVersion) (Include|Update)=\"$unneeded\"[^>]*\/>/d" "$file"
        fi
    done < <(find "$root" \( -name '*.fsproj' -o -name '*.props' -o -name '*.targets' \) -print0)
    printf '%s\n' '-p:WarningsNotAsErrors=NU1603' >"$root/Directory.Build.rsp"
    # `dotnet build`'s own restore does not read that response file: NU1603 is also taken out
    # of the warnings in a Directory.Build.targets (read after each project's own NoWarn).
    local no_warn="  <PropertyGroup><NoWarn>\$(NoWarn);NU1603</NoWarn>$program_file</PropertyGroup>"
    if [ -f "$root/Directory.Build.targets" ]; then
        python3 - "$root/Directory.Build.targets" "$no_warn" <<'PYTHON'
import sys
path, group = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8-sig").read()
at = text.rfind("</Project>")
open(path, "w", encoding="utf-8").write(text[:at] + group + "\n" + text[at:])
PYTHON
    else
        printf '<Project>\n%s\n</Project>\n' "$no_warn" >"$root/Directory.Build.targets"
    fi
    # A solution-level target restoring the library's dotnet tools needs a tool feed this
    # machine lacks, and only a solution build runs it.
    if [ -f "$root/Directory.Solution.targets" ] && grep -q 'dotnet tool restore' "$root/Directory.Solution.targets"; then
        echo "Directory.Solution.targets taken out (it runs dotnet tool restore)"
        rm -f "$root/Directory.Solution.targets"
    fi
    while IFS= read -r project; do
        local relative="${project#"$root"/}"
        if [[ "$relative" =~ (^|/)(benchmarks?|samples?|build|docs|tools)/|[Bb]enchmark|[Ss]ample|/fable/|SmokeTests|TrimTest|DieHarder|SourceGenerator ]]; then
            echo "left out (not the library or its tests): $relative"
            remove_project "$root" "$project"
        elif ! nice dotnet restore "$project" -nologo -v quiet -p:WarningsNotAsErrors=NU1603 >"$root.restore.log" 2>&1; then
            echo "left out (does not restore here): $relative: $(grep -Eo 'error NU[0-9]+: [^[]*' "$root.restore.log" | head -1)"
            remove_project "$root" "$project"
        fi
    done < <(find "$root" -name '*.fsproj' | sort)
    # A project referencing one taken out cannot compile (its uses of that project are errors):
    # taken out too, until none is left.
    local changed=1
    while [ -n "$changed" ]; do
        changed=""
        while IFS= read -r project; do
            local folder reference
            [ -f "$project" ] || continue
            folder="$(dirname "$project")"
            while IFS= read -r reference; do
                if [ ! -f "$folder/${reference//\\//}" ]; then
                    echo "left out (it references a project taken out, $reference): ${project#"$root"/}"
                    remove_project "$root" "$project"
                    changed=1
                    break
                fi
            done < <(grep -Eo '<ProjectReference Include="[^"]+"' "$project" | cut -d'"' -f2)
        done < <(find "$root" -name '*.fsproj' | sort)
    done
    # The solution would name the projects taken out: every project left is loaded instead.
    find "$root" -maxdepth 2 \( -name '*.sln' -o -name '*.slnx' \) -delete
    # As a user who built once: each project another references is built, every target
    # framework of it, so the reference assemblies its users' options name exist on disk. A
    # referenced project multi-targets (FsToolkit.ErrorHandling), the loader loads it for its
    # first framework and its user for another, and FCS then reads the user's reference from
    # disk, as the compiler does.
    local referenced
    while IFS= read -r referenced; do
        if ! nice dotnet build "$referenced" --no-restore -nologo -v quiet -p:WarningsNotAsErrors=NU1603 \
            >"$root.build.log" 2>&1; then
            echo "a referenced project does not build here: ${referenced#"$root"/}: $(grep -Eo 'error [A-Z]+[0-9]+: [^[]*' "$root.build.log" | head -1)"
        else
            echo "built (others reference it): ${referenced#"$root"/}"
        fi
    done < <(referenced_projects "$root")
}

# Every project another project of the copy references, once, absolute.
referenced_projects() {
    local root="$1" project folder reference
    while IFS= read -r project; do
        folder="$(dirname "$project")"
        while IFS= read -r reference; do
            realpath -m "$folder/${reference//\\//}"
        done < <(grep -Eo '<ProjectReference Include="[^"]+"' "$project" | cut -d'"' -f2)
    done < <(find "$root" -name '*.fsproj' | sort) | sort -u | while IFS= read -r path; do
        [ -f "$path" ] && echo "$path"
    done
}

for entry in "${libraries[@]}"; do
    read -r slug extent <<<"$entry"
    name="${slug#*/}"
    if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
    root="$work/$name"
    echo "== $slug" >&2
    copy_library "$slug" "$root"
    prepare_library "$root" | tee "$out/$name.prepared.txt" >&2
    if [ -n "$check" ]; then
        (cd "$root" && dotnet new sln --format sln -n oracle >/dev/null &&
            find . -name '*.fsproj' | sort | xargs -r dotnet sln oracle.sln add >/dev/null)
        started=$(date +%s)
        status=0
        checker=(python3 "$repository/scripts/check-oracle.py" "$root" --fslens "$fslens" --json "$out/$name.check.json")
        [ -n "$fsac" ] && checker+=(--fsac "$fsac")
        XDG_RUNTIME_DIR="$work" nice "${checker[@]}" >"$out/$name.check.md" 2>"$out/$name.check.log" || status=$?
        echo "$slug: check oracle exit $status in $(($(date +%s) - started)) s" | tee -a "$out/$name.prepared.txt" >&2
        continue
    fi
    arguments=(--workspace "$root" --fslens "$fslens" --no-restore --json "$out/$name.json" --seed "$seed")
    [ -n "$fsac" ] && arguments+=(--fsac "$fsac")
    [ "$extent" = sample ] && arguments+=(--max-symbols "$sample")
    started=$(date +%s)
    status=0
    XDG_RUNTIME_DIR="$work" nice dotnet "$oracle_out/FindOracle.dll" "${arguments[@]}" \
        >"$out/$name.md" 2>"$out/$name.log" || status=$?
    echo "$slug: oracle exit $status in $(($(date +%s) - started)) s" | tee -a "$out/$name.prepared.txt" >&2
done

if [ -n "$check" ]; then
    cat "$out"/*.check.md
else
    python3 "$repository/scripts/lib/oracle_table.py" "$out"
fi
