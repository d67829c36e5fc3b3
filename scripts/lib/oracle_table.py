"""One table of the find oracle's reports (scripts/oracle-libraries.sh): a row per library and
a row per symbol kind over all of them, with each verdict's count and the time fslens took,
then why the answers that are not exact said they were not complete.

    python3 scripts/lib/oracle_table.py REPORTS_DIR

REPORTS_DIR holds `<library>.json`, the oracle's `--json` reports.

`inactive only` counts the partial answers whose judged rows are the compiler's and whose every
reason is code the loaded configuration does not compile (an `#if` branch, another target):
fslens reports those rows and says partial by design, and the compiler, which sees one
configuration, cannot judge them. `exact where judged` adds them to the exact ones.
"""

import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

VERDICTS = ["exact", "wrong-while-complete", "partial-but-equal", "honestly-partial", "failed"]

# What a note of fslens says, by the words it says it with (docs/commands.md), first match wins.
REASONS = [
    ("inactive code", "inactive under the defines"),
    ("deadline", "deadline"),
    ("unresolved occurrences", "occurrence(s) of the name that no site covers"),
    ("declaration FSAC's references miss", "FSAC's references miss"),
    ("declaration the index cannot read", "neither confirm nor rule them out"),
    ("type errors where the name is", "type error"),
    ("projects not analysed", "scopeNote: analyzed"),
    ("occurrences past the request bound", "are sent per find"),
    ("a file the grammar could not read whole", "could not read whole"),
    ("a module abbreviation (FSAC answers for its target)", "abbreviates another module"),
]


def reasons_of(judged):
    """The classes of the reasons a judgement's answer gave for not being complete."""
    found = []
    for note in judged.get("notes", []):
        for name, words in REASONS:
            if words in note:
                found.append(name)
                break
        else:
            if not note.startswith("the query names an override"):
                # Unclassified: the note's words, numbers and parentheses taken out.
                found.append(re.sub(r"\d+|\(.*?\)", "", note).strip()[:70])
    return sorted(set(found)) or ["no reason given"]


def inactive_only(judged):
    return (
        judged["verdict"] == "partial-but-equal"
        and judged.get("inactive")
        and reasons_of(judged) == ["inactive code"]
    )


def row(name, judgements):
    counts = [sum(1 for judged in judgements if judged["verdict"] == verdict) for verdict in VERDICTS]
    total = len(judgements)
    exact = counts[0] * 100 / total if total else 0.0
    inactive = sum(1 for judged in judgements if inactive_only(judged))
    judged_exact = (counts[0] + inactive) * 100 / total if total else 0.0
    labelling = sum(
        1
        for judged in judgements
        if judged.get("mergedEqual") and judged["verdict"] in ("wrong-while-complete", "honestly-partial")
    )
    seconds = sum(judged["elapsedMs"] for judged in judgements) / 1000
    cells = [
        name,
        str(total),
        *map(str, counts),
        f"{exact:.1f} %",
        str(inactive),
        f"{judged_exact:.1f} %",
        str(labelling),
        f"{seconds:.0f}",
    ]
    return "| " + " | ".join(cells) + " |"


def main(directory):
    reports = sorted(Path(directory).glob("*.json"))
    by_kind = defaultdict(list)
    header = (
        "| {} | symbols | "
        + " | ".join(VERDICTS)
        + " | exact % | inactive only | exact where judged % | labelling only | fslens time (s) |"
    )
    rule = "|---" * (len(VERDICTS) + 7) + "|"
    print(header.format("library"))
    print(rule)
    everything = []
    reasons = defaultdict(Counter)
    for report in reports:
        document = json.loads(report.read_text())
        judgements = document["judgements"]
        everything += judgements
        for judged in judgements:
            by_kind[judged["kind"]].append(judged)
            if judged["verdict"] in ("partial-but-equal", "honestly-partial"):
                for reason in reasons_of(judged):
                    reasons[reason][report.stem] += 1
        name = f"{report.stem} ({len(judgements)} of {document['symbolsDeclared']})"
        print(row(name, judgements))
    print(row("all", everything))
    print()
    print(header.format("kind"))
    print(rule)
    for kind in sorted(by_kind):
        print(row(kind, by_kind[kind]))
    print()
    print("labelling only: wrong or partial, yet the rows are the compiler's sites with their labels ignored")
    print()
    print("| why a partial answer said it was partial | answers | by library |")
    print("|---|---|---|")
    for reason, libraries in sorted(reasons.items(), key=lambda item: -sum(item[1].values())):
        spread = ", ".join(f"{library} {count}" for library, count in sorted(libraries.items()))
        print(f"| {reason} | {sum(libraries.values())} | {spread} |")
    print()
    print("an answer with several reasons counts under each")


if __name__ == "__main__":
    main(sys.argv[1])
