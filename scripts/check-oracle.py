#!/usr/bin/env python3
"""The check oracle: `dotnet build` beside `fslens check`, with and without `--confirm build`.

For a workspace (copied first: the original is never touched), and for a second copy with
three errors planted in two files, it runs

  1. `dotnet build ENTRY` (the referee: a solution or project at the workspace's root, or
     `--entry`), its errors read from MSBuild's `file(line,col): error CODE: message` lines;
  2. `fslens check --json` over the workspace (FSAC's per-file check);
  3. `fslens check --json --confirm build`;

and compares each check's verdict and error set (code, workspace-relative file, 1-based line)
with the build's. The table goes to stdout; `--json FILE` also writes every answer's summary.

    scripts/check-oracle.py WORKSPACE [--entry src/Lib/Lib.fsproj] [--fsac CMD] [--fslens BIN]
                            [--timeout-ms 600000] [--json report.json]

`--fsac` defaults to the .NET FSAC double of tests/fsac-double-dotnet (built), `--fslens` to
target/debug/fslens. The planted errors are `let value : int = "planted"` inside a private
module appended to a compiled file (two in the first file, one in the second), so each is an
FS0001 the build and FSAC must both report at a known line, all in one project (a library of
one file gets all three). Files holding `[<EntryPoint>]` are skipped (the entry point must stay last).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
ERROR_LINE = re.compile(r"^(?P<place>.*?): error (?P<code>[A-Z]*\d+): (?P<message>.*?)(?: \[(?P<project>[^\]]*)\])?$")
PLANT = '\nmodule private FslensOraclePlanted{n} =\n    let value : int = "planted"\n'


def build_errors(root: Path, output: str) -> set:
    """(code, file, line) of each error line the build wrote, once each."""
    errors = set()
    for line in output.splitlines():
        match = ERROR_LINE.match(line.strip())
        if not match:
            continue
        place = match["place"].strip()
        position = re.match(r"^(.*)\((\d+),\d+(?:,\d+,\d+)?\)$", place)
        file, number = (position[1], int(position[2])) if position else (place, 0)
        try:
            file = str(Path(file).resolve().relative_to(root.resolve()))
        except ValueError:
            pass
        errors.add((match["code"], file, number))
    return errors


def run_build(root: Path, entry: str, timeout: float) -> dict:
    started = time.time()
    command = ["dotnet", "build", entry, "-nologo", "-tl:off", "-nodeReuse:false", "-v:q", "-clp:NoSummary;ForceNoAlign"]
    try:
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"verdict": "unknown", "errors": set(), "seconds": round(time.time() - started, 1), "note": "timed out"}
    errors = build_errors(root, done.stdout + done.stderr)
    verdict = "clean" if done.returncode == 0 else "errors"
    note = "" if errors or done.returncode == 0 else (done.stdout + done.stderr).strip().splitlines()[-3:]
    return {"verdict": verdict, "errors": errors, "seconds": round(time.time() - started, 1), "note": note}


def run_check(root: Path, fslens: str, fsac: str, timeout_ms: int, confirm: bool) -> dict:
    started = time.time()
    runtime = tempfile.mkdtemp(prefix="fslens-oracle-runtime-")
    command = [fslens, "check", "--json", "--timeout-ms", str(timeout_ms), "--fsac", fsac, "--workspace", str(root)]
    if confirm:
        command += ["--confirm", "build"]
    # fslens waits timeoutMs, and with --confirm its build's own deadline (buildTimeoutMs, ten
    # minutes) too; a run past both (and five more minutes) is recorded, not raised.
    limit = timeout_ms / 1000 + (600 if confirm else 0) + 300
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env={**os.environ, "XDG_RUNTIME_DIR": runtime},
            timeout=limit,
        )
    except subprocess.TimeoutExpired:
        return {"verdict": "timed out", "errors": set(), "seconds": round(time.time() - started, 1),
                "note": f"fslens check did not answer within {limit:.0f} s", "verdictSource": None, "status": None,
                "notConfirmed": 0, "notCompiled": 0}
    finally:
        shutil.rmtree(runtime, ignore_errors=True)
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"verdict": "failed", "errors": set(), "seconds": round(time.time() - started, 1),
                "note": done.stderr.strip().splitlines()[-3:], "verdictSource": None, "status": None,
                "notConfirmed": 0, "notCompiled": 0}
    def key(code, file, line):
        return (f"FS{int(code):04d}" if str(code).isdigit() else str(code), file, line)

    listed = [d for d in answer.get("diagnostics", []) if d.get("severity") == "error"]
    confirmation = answer.get("confirmation") or {}
    if answer.get("verdictSource") == "build":
        # The error set the verdict rests on: FSAC's errors the build confirmed, and the
        # build's own.
        errors = {key(d["code"], d["file"], d["range"]["start"]["line"] + 1) for d in listed if d.get("confirmedByBuild")}
        errors |= {key(e["code"], e["file"], e["line"]) for e in confirmation.get("errorsOnlyInBuild", [])}
    else:
        errors = {key(d["code"], d["file"], d["range"]["start"]["line"] + 1) for d in listed}
    return {
        "verdict": answer.get("verdict"),
        "verdictSource": answer.get("verdictSource"),
        "status": confirmation.get("status"),
        "errors": errors,
        "notConfirmed": sum(1 for d in answer.get("diagnostics", []) if d.get("confirmedByBuild") is False),
        # FSAC's errors in files the failed build never compiled (filesNotCompiled): not judged.
        "notCompiled": sum(1 for d in listed if d.get("file") in confirmation.get("filesNotCompiled", [])),
        "complete": answer.get("complete"),
        "truncated": answer.get("diagnosticsTruncated"),
        "seconds": round(time.time() - started, 1),
        "note": answer.get("verdictNote") or answer.get("reason") or "",
    }


def compiled_files(root: Path, entry: str) -> list:
    """The F# files of one project under the entry, in order (from Compile items): the first
    project (by path) compiling two or more, else the first compiling any. One project, so the
    build compiles every planted error (a project whose referenced project failed is stopped
    before its compiler runs)."""
    projects = [root / entry] if entry.endswith("proj") else sorted(root.rglob("*.fsproj"))
    per_project = []
    for project in projects:
        text = project.read_text(encoding="utf-8-sig")
        files = []
        for include in re.findall(r'<Compile\s+Include="([^"*]+\.fs)"', text):
            path = (project.parent / include.replace("\\", "/")).resolve()
            if path.is_file() and "[<EntryPoint>]" not in path.read_text(encoding="utf-8-sig"):
                files.append(path)
        if files:
            per_project.append(files)
    return next((files for files in per_project if len(files) >= 2), per_project[0] if per_project else [])


def plant(root: Path, entry: str) -> list:
    """Three errors in two files (all three in the one file of a one-file library); returns
    their (code, file, line)."""
    files = compiled_files(root, entry)
    if not files:
        sys.exit("the workspace compiles no F# file to plant errors in")
    planted = []
    for n, path in enumerate([files[0], files[0], files[-1]], start=1):
        text = path.read_text(encoding="utf-8-sig")
        if not text.endswith("\n"):
            text += "\n"
        line = text.count("\n") + 3  # the blank line, the module line, then the value
        path.write_text(text + PLANT.format(n=n), encoding="utf-8")
        planted.append(("FS0001", str(path.relative_to(root)), line))
    return planted


def default_entry(root: Path) -> str:
    for pattern in ("*.slnx", "*.sln"):
        found = sorted(root.glob(pattern))
        if len(found) == 1:
            return found[0].name
    projects = sorted(root.rglob("*.fsproj"))
    if len(projects) == 1:
        return str(projects[0].relative_to(root))
    sys.exit("no single solution at the root and several projects: pass --entry")


def compare(build: dict, check: dict) -> str:
    missing, extra = build["errors"] - check["errors"], check["errors"] - build["errors"]
    agree = check["verdict"] == build["verdict"] and not missing and not extra
    return f"{'agree' if agree else 'DISAGREE'} (missing {len(missing)}, extra {len(extra)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--entry")
    parser.add_argument("--fslens", default=str(REPOSITORY / "target/debug/fslens"))
    parser.add_argument("--fsac", default="dotnet " + str(REPOSITORY / "tests/fsac-double-dotnet/bin/Release/net10.0/FsacDouble.dll"))
    parser.add_argument("--timeout-ms", type=int, default=600_000)
    parser.add_argument("--json", type=Path)
    arguments = parser.parse_args()

    report = {}
    with tempfile.TemporaryDirectory(prefix="fslens-check-oracle-") as scratch:
        for variant in ("as published", "three errors planted"):
            root = Path(scratch) / variant.replace(" ", "-")
            shutil.copytree(arguments.workspace, root, ignore=shutil.ignore_patterns("bin", "obj", ".git"))
            entry = arguments.entry or default_entry(root)
            planted = plant(root, entry) if variant != "as published" else []
            subprocess.run(["dotnet", "restore", entry, "-v", "q"], cwd=root, capture_output=True)
            build = run_build(root, entry, arguments.timeout_ms / 1000)
            plain = run_check(root, arguments.fslens, arguments.fsac, arguments.timeout_ms, confirm=False)
            confirmed = run_check(root, arguments.fslens, arguments.fsac, arguments.timeout_ms, confirm=True)
            report[variant] = {"entry": entry, "planted": planted, "build": build, "check": plain, "confirmed": confirmed}

    print(f"check oracle: {arguments.workspace}")
    print("| variant | source | verdict | errors | vs build | seconds | note |")
    print("|---|---|---|---|---|---|---|")
    for variant, rows in report.items():
        build = rows["build"]
        print(f"| {variant} | dotnet build | {build['verdict']} | {len(build['errors'])} | | {build['seconds']} | {build['note']} |")
        for label, key in (("fslens check", "check"), ("fslens check --confirm build", "confirmed")):
            check = rows[key]
            extra = (
                f" ({check['verdictSource']}, {check['status'] or '-'}, {check['notConfirmed']} not confirmed, "
                f"{check.get('notCompiled', 0)} in files the build did not compile)"
                if key == "confirmed" else ""
            )
            print(f"| {variant} | {label} | {check['verdict']}{extra} | {len(check['errors'])} | {compare(build, check)} | {check['seconds']} | {str(check['note'])[:160]} |")
        if rows["planted"]:
            planted = set(rows["planted"])
            print(f"| {variant} | planted found | build {len(planted & build['errors'])}/3, check {len(planted & rows['check']['errors'])}/3, confirmed {len(planted & rows['confirmed']['errors'])}/3 | | | | |")
    if arguments.json:
        def plain(value):
            return sorted(value) if isinstance(value, set) else value
        arguments.json.write_text(json.dumps(report, default=plain, indent=1))


if __name__ == "__main__":
    main()
