"""Whether two simulation runs of the same bundle, questions and seed answered alike (a Ray cluster against the
local backend, one commit against another).

    python -m simulation.compare_runs RUN_A RUN_B

Each ask (question, edge asked at, mode) is compared on what decides and what a person reads: the decision, the
edges asked, the short answer and the whole answer. Prints the count of asks in both, how many are identical in
each field, and every ask that differs (with both values); exits 1 when an ask of one run is missing from the
other or any field differs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from simulation.answer_rows import find_answers, read_rows

FIELDS = ("decision", "edges_asked", "short", "answer")

Key = tuple[str, str, str]


def by_ask(rows: Sequence[Mapping[str, Any]]) -> dict[Key, Mapping[str, Any]]:
    return {(str(r["qid"]), str(r["asked_at"]), str(r["mode"])): r for r in rows}


def differences(a: Mapping[Key, Mapping[str, Any]], b: Mapping[Key, Mapping[str, Any]]) -> list[str]:
    """One line per ask missing from a run or differing in a field of :data:`FIELDS`."""
    out = [f"{k}: only in the first run" for k in sorted(a.keys() - b.keys())]
    out += [f"{k}: only in the second run" for k in sorted(b.keys() - a.keys())]
    for key in sorted(a.keys() & b.keys()):
        for field in FIELDS:
            if a[key].get(field) != b[key].get(field):
                out.append(f"{key} {field}: {a[key].get(field)!r} != {b[key].get(field)!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m simulation.compare_runs", description=__doc__.split("\n")[0])
    p.add_argument("first", type=Path, help="a run directory (or its answers file)")
    p.add_argument("second", type=Path, help="another run of the same bundle, questions and seed")
    args = p.parse_args(argv)
    a, b = (by_ask(read_rows(r if r.is_file() else find_answers(r))) for r in (args.first, args.second))
    both = a.keys() & b.keys()
    print(f"asks: {len(a)} and {len(b)}, {len(both)} in both")
    for field in FIELDS:
        same = sum(1 for k in both if a[k].get(field) == b[k].get(field))
        print(f"  {field}: {same} of {len(both)} identical")
    diff = differences(a, b)
    for line in diff:
        print(line)
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
