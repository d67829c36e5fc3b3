"""One table of the find oracle's reports (scripts/oracle-libraries.sh): a row per library and
a row per symbol kind over all of them, with each verdict's count and the time fslens took.

    python3 scripts/lib/oracle_table.py REPORTS_DIR

REPORTS_DIR holds `<library>.json`, the oracle's `--json` reports.
"""

import json
import sys
from collections import defaultdict
from pathlib import Path

VERDICTS = ["exact", "wrong-while-complete", "partial-but-equal", "honestly-partial", "failed"]


def row(name, judgements):
    counts = [sum(1 for judged in judgements if judged["verdict"] == verdict) for verdict in VERDICTS]
    exact = counts[0] * 100 / len(judgements) if judgements else 0.0
    labelling = sum(
        1
        for judged in judgements
        if judged.get("mergedEqual") and judged["verdict"] in ("wrong-while-complete", "honestly-partial")
    )
    seconds = sum(judged["elapsedMs"] for judged in judgements) / 1000
    cells = [name, str(len(judgements)), *map(str, counts), f"{exact:.0f} %", str(labelling), f"{seconds:.0f}"]
    return "| " + " | ".join(cells) + " |"


def main(directory):
    reports = sorted(Path(directory).glob("*.json"))
    by_kind = defaultdict(list)
    header = "| {} | symbols | " + " | ".join(VERDICTS) + " | exact % | labelling only | fslens time (s) |"
    rule = "|---" * (len(VERDICTS) + 5) + "|"
    print(header.format("library"))
    print(rule)
    everything = []
    for report in reports:
        document = json.loads(report.read_text())
        judgements = document["judgements"]
        everything += judgements
        for judged in judgements:
            by_kind[judged["kind"]].append(judged)
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


if __name__ == "__main__":
    main(sys.argv[1])
