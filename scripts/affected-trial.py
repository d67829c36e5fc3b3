#!/usr/bin/env python3
"""affectedTests tried on a library's real commits, with a planted fault as the safety check.

    scripts/affected-trial.py LIBRARY --test-project PROJ [--fault-under DIR] [--leave-out PROJ]... COMMIT...

LIBRARY is a git checkout of a published library (a clone, never this repository); PROJ its
test project (relative to LIBRARY). For each COMMIT:

1. the checkout is moved to COMMIT and `fslens affected-tests --since COMMIT^ --json` runs
   there (timed): the changed declarations, the selected tests, complete or partial, what it
   did not follow, the fallback tests;
2. the test project is built and the whole suite run (`dotnet test`, a trx file; timed): the
   tests that fail without any fault (flaky or already failing) are set aside;
3. for each changed declaration under --fault-under (default `src/`: the library, not its
   tests) that is not removed, a fault is planted in its body (a `failwith "planted"` as its
   first statement), the test project rebuilt and the whole suite run again; every test that
   fails then and did not fail in step 2 must be among the selected tests. The file is
   restored after each.

Prints one markdown table (and writes the answers, trx files and logs under --out). The
checkout is left at the commit it was at. fslens: $FSLENS (default target/debug/fslens of
this repository); its FSAC: $FSLENS_FSAC (default the .NET FSAC double,
tests/fsac-double-dotnet). Builds and test runs are started under `nice -n 10`. A library
whose test project targets a runtime this machine lacks runs with DOTNET_ROLL_FORWARD=Major
set by the caller.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
FAULT = 'failwith "planted"'


def git(library, *arguments):
    return subprocess.run(["git", *arguments], cwd=library, check=True, capture_output=True, text=True).stdout


def timed(command, cwd, log, env=None):
    """Runs command (niced) in cwd, output to log; returns (exit code, seconds)."""
    started = time.monotonic()
    with open(log, "w") as out:
        code = subprocess.run(["nice", "-n", "10", *command], cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env).returncode
    return code, time.monotonic() - started


def affected(library, commit, out, timeout_ms):
    fslens = os.environ.get("FSLENS", str(REPOSITORY / "target/debug/fslens"))
    env = dict(os.environ)
    double = REPOSITORY / "tests/fsac-double-dotnet/bin/Release/net10.0/FsacDouble.dll"
    env.setdefault("FSLENS_FSAC", f"dotnet {double}")
    answer_path = out / f"{commit}.affected.json"
    started = time.monotonic()
    with open(answer_path, "w") as answer, open(out / f"{commit}.affected.log", "w") as log:
        subprocess.run(
            ["nice", "-n", "10", fslens, "affected-tests", "--since", f"{commit}^", "--json", "--no-share", "--timeout-ms", str(timeout_ms)],
            cwd=library, stdout=answer, stderr=log, env=env,
        )
    seconds = time.monotonic() - started
    return json.loads(answer_path.read_text()), seconds


def base_name(name):
    """A test's name without a parameterised row's arguments."""
    return re.sub(r"\(.*\)$", "", name.strip()).strip()


def suite(library, project, label, out):
    """Builds the test project and runs the whole suite; returns (outcomes by name, seconds, total) or
    raises with the build log's path."""
    code, _ = timed(["dotnet", "build", project, "-nologo", "-v", "q"], library, out / f"{label}.build.log")
    if code != 0:
        raise RuntimeError(f"build failed: {out / (label + '.build.log')}")
    trx = out / f"{label}.trx"
    trx.unlink(missing_ok=True)
    _, seconds = timed(
        ["dotnet", "test", project, "--no-build", "-nologo", "--logger", f"trx;LogFileName={trx}"],
        library, out / f"{label}.test.log",
    )
    namespace = {"t": "http://microsoft.com/schemas/VisualStudio/TeamTest/2010"}
    root = ElementTree.parse(trx).getroot()
    outcomes = {}
    for result in root.iterfind(".//t:UnitTestResult", namespace):
        outcomes.setdefault(result.get("testName"), []).append(result.get("outcome"))
    return outcomes, seconds


def failed(outcomes):
    return {name for name, rows in outcomes.items() if "Failed" in rows}


def selected_names(tests):
    names = set()
    for test in tests:
        names.add(base_name(test["name"]))
        if test.get("fullyQualifiedName"):
            names.add(base_name(test["fullyQualifiedName"]))
    return names


def is_selected(name, names):
    name = base_name(name)
    return name in names or any(name.endswith("." + selected) for selected in names)


def header_end(lines, line, name):
    """(line, column) just after the `=` that ends the declaration's header starting at `line`."""
    start = lines[line].find(name)
    depth = 0
    for number in range(line, min(line + 30, len(lines))):
        text = lines[number]
        column = start + len(name) if number == line and start >= 0 else 0
        while column < len(text):
            char = text[column]
            if char in "([{<":
                depth += 1
            elif char in ")]}>" and not text[column - 1 : column + 1] == "->":
                depth -= 1
            elif char == "=" and depth <= 0 and text[column + 1 : column + 2] not in ("=", ">") and text[column - 1] not in "<>!:=":
                return number, column + 1
            column += 1
    return None


def plant(path, line, name):
    """Plants a fault as the first statement of the declaration's body; returns the original text
    or None when the body was not found."""
    original = path.read_text()
    lines = original.split("\n")
    end = header_end(lines, line, name)
    if end is None:
        return None
    number, column = end
    rest = lines[number][column:].split("//")[0].strip()
    following = next((n for n in range(number + 1, len(lines)) if lines[n].strip()), None)
    indent = (lambda text: text[: len(text) - len(text.lstrip())])
    if rest == "" or rest.endswith("{") or rest.endswith("->"):
        # the body (or the computation expression's body) starts on the next line
        if following is None:
            return None
        lines.insert(following, indent(lines[following]) + FAULT)
    else:
        lines[number] = lines[number][:column] + f" ({FAULT} : unit); " + lines[number][column:].lstrip()
    path.write_text("\n".join(lines))
    return original


def leave_out(library, projects):
    """Takes each project out of the solutions at the library's root (a user without its packages
    would not load it); `git checkout` of the solutions puts them back. A solution is no file
    affected-tests compares, so the change since the revision is the commit's own."""
    for solution in sorted(library.glob("*.sln")) if projects else []:
        subprocess.run(["dotnet", "sln", str(solution), "remove", *projects], cwd=library, check=True, capture_output=True)


def trial(library, project, fault_under, commit, out, timeout_ms, left_out):
    git(library, "checkout", "-q", commit)
    leave_out(library, left_out)
    try:
        answer, affected_seconds = affected(library, commit, out, timeout_ms)
    finally:
        if left_out:
            git(library, "checkout", "-q", "--", *[path.name for path in library.glob("*.sln")])
    selected = selected_names(answer.get("tests", []))
    fallback = selected_names(answer.get("fallbackTests") or [])
    baseline, suite_seconds = suite(library, project, f"{commit}.baseline", out)
    baseline_failed = failed(baseline)
    row = {
        "commit": commit,
        "declarations": [],
        "selected": len(answer.get("tests", [])),
        "suite": sum(len(rows) for rows in baseline.values()),
        "complete": answer.get("complete"),
        "missing": answer.get("missing", []),
        "fallback": len(answer.get("fallbackTests") or []),
        "affectedSeconds": affected_seconds,
        "suiteSeconds": suite_seconds,
        "baselineFailed": sorted(baseline_failed),
        "faults": [],
    }
    for declaration in answer.get("changedDeclarations", []):
        label = f"{declaration['qualifiedName']} ({declaration['change']})"
        row["declarations"].append(label)
        if not declaration["path"].startswith(fault_under) or declaration["change"] == "removed":
            continue
        path = library / declaration["path"]
        original = plant(path, declaration["line"], declaration["name"])
        fault = {"declaration": label, "line": declaration["line"] + 1}
        if original is None:
            fault["error"] = "no body found to plant in"
            row["faults"].append(fault)
            continue
        try:
            tag = f"{commit}.{declaration['name']}"
            outcomes, seconds = suite(library, project, re.sub(r"[^\w.-]", "_", tag), out)
            failing = failed(outcomes) - baseline_failed
            fault.update({
                "failing": sorted(failing),
                "missed": sorted(name for name in failing if not is_selected(name, selected)),
                "inFallback": sorted(name for name in failing if not is_selected(name, selected) and is_selected(name, fallback)),
                "seconds": seconds,
            })
        except RuntimeError as error:
            fault["error"] = str(error)
        finally:
            path.write_text(original)
        row["faults"].append(fault)
    return row


def table(rows):
    print("| commit | changed declarations | selected | whole suite | complete | failing under fault | missed | affected-tests time | whole-suite time | fault runs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        failing = []
        missed = []
        runs = []
        for fault in row["faults"]:
            if "error" in fault:
                failing.append(f"{fault['declaration']}: {fault['error']}")
                continue
            failing.append(f"{fault['declaration']}: {len(fault['failing'])}")
            missed.append(f"{fault['declaration']}: {len(fault['missed'])}" + (f" ({len(fault['inFallback'])} in fallbackTests)" if fault["missed"] else ""))
            runs.append(f"{fault['seconds']:.0f} s")
        print(
            f"| {row['commit']} | {len(row['declarations'])}: {'; '.join(row['declarations'])} | {row['selected']} "
            f"| {row['suite']} | {'complete' if row['complete'] else 'partial'} ({row['fallback']} fallback) "
            f"| {'; '.join(failing) or '-'} | {'; '.join(missed) or '-'} | {row['affectedSeconds']:.0f} s "
            f"| {row['suiteSeconds']:.0f} s | {', '.join(runs) or '-'} |"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("library", type=Path)
    parser.add_argument("commits", nargs="+")
    parser.add_argument("--test-project", required=True)
    parser.add_argument("--fault-under", default="src/")
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--leave-out", action="append", default=[], metavar="PROJECT",
        help="a project taken out of the root solution while affected-tests runs (one that does not restore here, as for a user without its packages)",
    )
    parser.add_argument(
        "--timeout-ms", type=int, default=600000,
        help="affected-tests' one deadline for every find of the walk (its default, 120000, cuts finds short on a loaded machine)",
    )
    arguments = parser.parse_args()
    library = arguments.library.resolve()
    if git(library, "status", "--porcelain", "--untracked-files=no").strip():
        sys.exit(f"{library} has uncommitted changes: the trial checks out each commit")
    out = (arguments.out or Path(f"/tmp/affected-trial.{os.getpid()}")).resolve()
    out.mkdir(parents=True, exist_ok=True)
    print(f"affected-trial: answers, trx files and logs in {out}", file=sys.stderr)
    start = git(library, "rev-parse", "HEAD").strip()
    rows = []
    try:
        for commit in arguments.commits:
            rows.append(
                trial(library, arguments.test_project, arguments.fault_under, commit, out, arguments.timeout_ms, arguments.leave_out)
            )
            (out / "rows.json").write_text(json.dumps(rows, indent=2))
    finally:
        git(library, "checkout", "-q", start)
    table(rows)
    for row in rows:
        print(f"\n{row['commit']}: {'complete' if row['complete'] else 'partial'}; not followed: {row['missing'] or '-'}")
        if row["baselineFailed"]:
            print(f"  failing without a fault (set aside): {row['baselineFailed']}")
        for fault in row["faults"]:
            if fault.get("missed"):
                print(f"  {fault['declaration']}: missed {fault['missed']}")


if __name__ == "__main__":
    main()
