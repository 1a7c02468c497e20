"""Compare two simulation runs row by row, ignoring what a clock measures (timings, model seconds).

    python scripts/compare_rows.py runs/before runs/after
    python scripts/compare_rows.py --answers runs/in-process runs/served     # how far the answers agree

Rows are matched by (qid, asked_at, mode); exit 0 when every other field is identical, else 1 with the
differences listed. Used to show that a refactoring left behaviour unchanged on a fixed sample and seed.
``--answers`` compares what a person reads instead (the same model behind another backend): per mode, the rows
whose short answer is the same, strict accuracy on each side, the largest confidence gap, and the readers used.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

CLOCK_FIELDS = frozenset({"timings"})
CLOCK_SPEED_FIELDS = frozenset({"prefill_seconds", "decode_seconds"})


Rows = dict[tuple[str, str, str], dict[str, Any]]


def rows(run: Path) -> Rows:
    plain, packed = run / "answers.jsonl", run / "answers.jsonl.gz"
    text = plain.read_text(encoding="utf-8") if plain.is_file() else gzip.decompress(packed.read_bytes()).decode()
    out = {}
    for line in text.splitlines():
        if line.strip():
            row = json.loads(line)
            out[(row["qid"], row["asked_at"], row["mode"])] = row
    return out


def comparable(row: dict[str, Any]) -> dict[str, Any]:
    kept = {k: v for k, v in row.items() if k not in CLOCK_FIELDS}
    if isinstance(kept.get("model_speed"), dict):
        kept["model_speed"] = {k: v for k, v in kept["model_speed"].items() if k not in CLOCK_SPEED_FIELDS}
    return kept


def answers(before: Rows, after: Rows) -> int:
    """Agreement of the shown answers, per mode, printed; 0."""
    for mode in sorted({k[2] for k in before.keys() & after.keys()}):
        keys = sorted(k for k in before.keys() & after.keys() if k[2] == mode)
        same = sum(1 for k in keys if before[k].get("short") == after[k].get("short"))
        right = [sum(1 for k in keys if side[k].get("correct")) for side in (before, after)]
        gap = max((abs(float(before[k]["confidence"]) - float(after[k]["confidence"])) for k in keys), default=0.0)
        readers = [Counter(str(side[k].get("reader")) for k in keys) for side in (before, after)]
        print(f"{mode}: {len(keys)} asks, same short answer {same}, right {right[0]} -> {right[1]}, ", end="")
        print(f"largest confidence gap {gap:.3f}")
        print(f"  readers before {dict(readers[0].most_common())}\n  readers after  {dict(readers[1].most_common())}")
    return 0


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--answers":
        return answers(rows(Path(argv[1])), rows(Path(argv[2])))
    before, after = rows(Path(argv[0])), rows(Path(argv[1]))
    problems = [f"only in {argv[0]}: {k}" for k in sorted(before.keys() - after.keys())]
    problems += [f"only in {argv[1]}: {k}" for k in sorted(after.keys() - before.keys())]
    for key in sorted(before.keys() & after.keys()):
        a, b = comparable(before[key]), comparable(after[key])
        for field in sorted(a.keys() | b.keys()):
            if a.get(field) != b.get(field):
                problems.append(f"{key} {field}: {a.get(field)!r:.120} != {b.get(field)!r:.120}")
    for p in problems:
        print(p)
    print(f"{len(before.keys() & after.keys())} rows compared, {len(problems)} difference(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
